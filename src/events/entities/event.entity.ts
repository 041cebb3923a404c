import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('events')
export class EventEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' }) seq: string;
  @Column('text') id: string;
  @Column('uuid', { name: 'org_id' }) orgId: string;
  @Column('text') type: string;
  @Column('boolean') test: boolean;
  @Column('timestamptz', { name: 'occurred_at' }) occurredAt: Date;
  @Column('json') data: Record<string, any>;
  /** The traceparent of the span that recorded it (tracing on): delivery attempts continue that trace. */
  @Column('text', { name: 'trace_context', nullable: true }) traceContext: string | null;
}
