import { Injectable } from '@nestjs/common';
import { asOfColumn } from '../database/change-stamp.js';
import { GenerateSql } from '../database/generate-sql.js';
import type { RowOf } from '../database/select-list.js';
import { Database } from '../database/sql.js';
import { STANDING, standingStatement, type KeyCaller } from './key-standing.js';

const WITH_AS_OF = STANDING.and(asOfColumn('$3'));

/** The standing statement auth runs on its own (key-standing.ts composes those other contexts run). Prepared. */
@Injectable()
export class KeyStandingRepository {
  constructor(private readonly db: Database) {}

  /**
   * The first statement of a keyed list: the standing with the page's as_of, which must be read before the page
   * (change-stamp.ts).
   */
  @GenerateSql({ params: [{ keyId: 'key', orgId: 'org' }, 30_000] })
  async standingWithAsOf(caller: KeyCaller, marginMs: number): Promise<RowOf<typeof WITH_AS_OF> | null> {
    const [row] = await this.db.prepared('key_standing_as_of', WITH_AS_OF, standingStatement(WITH_AS_OF, null), [
      caller.keyId,
      caller.orgId,
      marginMs,
    ]);
    return row ?? null;
  }
}
