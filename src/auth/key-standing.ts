/**
 * The calling key's standing, read inside the statement that reads the data
 * (so a principal cached by the process is re-checked on every request, in
 * the same snapshot as the data): the key's revocation and expiry, and the
 * firm's timezone, which every answer carries. A repository of another context
 * joins these fragments into its own statement; KeyStanding (key-standing.service.ts)
 * judges the columns.
 */

/** The columns every such statement returns, named so they cannot clash with the data's. */
export interface KeyStandingColumns {
  key_revoked_at: Date | null;
  key_expires_at: Date | null;
  firm_timezone: string | null;
}

export const KEY_STANDING_COLUMNS =
  'standing_key.revoked_at AS key_revoked_at, standing_key.expires_at AS key_expires_at, standing_firm.timezone AS firm_timezone';

/** FROM item: the key and its firm. */
export const KEY_STANDING_FROM = 'api_keys standing_key JOIN orgs standing_firm ON standing_firm.id = standing_key.org_id';

/** WHERE: that key, of that firm (the principal's firm: a key moved to another firm finds no row). */
export const keyStandingWhere = (keyIdParam: string, orgIdParam: string): string =>
  `standing_key.id = ${keyIdParam} AND standing_key.org_id = ${orgIdParam}`;
