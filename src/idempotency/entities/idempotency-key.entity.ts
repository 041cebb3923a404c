import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';

/**
 * One `Idempotency-Key` of one API key (`idempotency_keys`), kept 24 hours from its first request. While that request
 * runs the row holds a lease (`lockedUntil`, database time) and its claim's token; once it has answered, its status
 * and the answer, sealed with a key derived from the API key and the idempotency key (stored-answer.ts), so the
 * table alone opens no answer (a recording link's url is a credential).
 */
@Entity('idempotency_keys')
@Check('idempotency_keys_lease_check', '(claim_token IS NULL) = (locked_until IS NULL)')
@Check('idempotency_keys_answer_check', '(status_code IS NULL) = (answer IS NULL)')
@Index('idempotency_keys_created_idx', ['createdAt'])
export class IdempotencyKeyEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'idempotency_keys_pkey' })
  @ForeignKey('api_keys', { name: 'idempotency_keys_key_id_fkey', onDelete: 'CASCADE' })
  keyId: string;

  @PrimaryColumn('text', { primaryKeyConstraintName: 'idempotency_keys_pkey' })
  idempotencyKey: string;

  /** SHA-256 of the method, path and body of the first request (request-fingerprint.ts), hex. */
  @Column('text')
  requestHash: string;

  /** When the first request came (the app clock): the key is forgotten 24 hours later. */
  @Column('timestamptz')
  createdAt: Date;

  @Column('timestamptz', { nullable: true })
  lockedUntil: Date | null;

  @Column('uuid', { nullable: true })
  claimToken: string | null;

  @Column('integer', { nullable: true })
  statusCode: number | null;

  @Column('text', { nullable: true })
  answer: string | null;
}
