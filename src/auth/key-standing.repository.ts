import { Injectable } from '@nestjs/common';
import { asOfColumn } from '../database/change-stamp.js';
import { GenerateSql } from '../database/generate-sql.js';
import type { RowOf } from '../database/select-list.js';
import { Database } from '../database/sql.js';
import { SqlParams } from '../database/sql-params.js';
import { STANDING, standingStatement, type KeyCaller } from './key-standing.js';

/** The standing with the page's as_of, its margin (in ms) a value of the statement. */
const withAsOf = (params: SqlParams, marginMs: number) => STANDING.and(asOfColumn(params.add(marginMs)));

/** The standing statement auth runs on its own (key-standing.ts composes those other contexts run). Prepared. */
@Injectable()
export class KeyStandingRepository {
  constructor(private readonly db: Database) {}

  /**
   * The first statement of a keyed list: the standing with the page's as_of, which must be read before the page
   * (change-stamp.ts).
   */
  @GenerateSql({ params: [{ keyId: 'key', orgId: 'org' }, 30_000] })
  async standingWithAsOf(caller: KeyCaller, marginMs: number): Promise<RowOf<ReturnType<typeof withAsOf>> | null> {
    const params = new SqlParams();
    const statement = standingStatement(params, caller, (p) => withAsOf(p, marginMs), null);
    const [row] = await this.db.prepared('key_standing_as_of', statement.columns, statement.text, params.values);
    return row ?? null;
  }
}
