import { Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { CallEntity } from './call.entity.js';

/** One reference key a call mentions (`call_references`), so the list's `reference` filter is an index lookup. */
@Entity('call_references')
@ForeignKey(() => CallEntity, ['orgId', 'callId'], ['orgId', 'callId'], {
  name: 'call_references_org_id_call_id_fkey',
  onDelete: 'CASCADE',
})
@Index('call_references_call_idx', ['orgId', 'callId'])
export class CallReferenceEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'call_references_pkey' })
  orgId: string;

  @PrimaryColumn('text', { primaryKeyConstraintName: 'call_references_pkey' })
  key: string;

  @PrimaryColumn('text', { primaryKeyConstraintName: 'call_references_pkey' })
  callId: string;
}
