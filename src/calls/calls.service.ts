import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { notFound } from '../common/errors/api-error.js';
import { CallEntity } from './entities/call.entity.js';

export interface CallRef {
  orgId: string;
  callId: string;
  hasRecording: boolean;
}

@Injectable()
export class CallsService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The firm's call, or 404 (another firm's call answers exactly like a missing one). */
  async requireCall(orgId: string, callId: string, manager: EntityManager = this.dataSource.manager): Promise<CallRef> {
    const row = await manager.getRepository(CallEntity).findOne({ where: { orgId, callId }, select: { orgId: true, callId: true, hasRecording: true } });
    if (!row) throw notFound('The call');
    return { orgId: row.orgId, callId: row.callId, hasRecording: row.hasRecording };
  }

  /** Recording stored or removed: a change of the call, so updated_at moves. */
  async setHasRecording(manager: EntityManager, orgId: string, callId: string, hasRecording: boolean): Promise<void> {
    await manager.query('UPDATE calls SET has_recording = $3, updated_at = now() WHERE org_id = $1 AND call_id = $2', [orgId, callId, hasRecording]);
  }
}
