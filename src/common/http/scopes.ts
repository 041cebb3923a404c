/** The scopes of the spec, and the four permission sets a key is created with. */
export const SCOPES = [
  'org:read',
  'receptionist:read',
  'calls:read',
  'calls:transcript',
  'calls:recording',
  'leads:read',
  'leads:narrative',
  'leads:write',
  'webhooks:read',
  'webhooks:test',
] as const;
export type Scope = (typeof SCOPES)[number];

const READ_BASE: Scope[] = ['org:read', 'receptionist:read', 'calls:read', 'leads:read', 'webhooks:read', 'webhooks:test'];
const FULL_READ: Scope[] = [...READ_BASE, 'calls:transcript', 'calls:recording', 'leads:narrative'];

export const PERMISSION_SETS = {
  'read-no-transcripts': { label: 'Read, without transcripts', scopes: READ_BASE },
  'read-no-transcripts-update-leads': { label: 'Read without transcripts, and update leads', scopes: [...READ_BASE, 'leads:write'] },
  read: { label: 'Read', scopes: FULL_READ },
  'read-update-leads': { label: 'Read and update leads', scopes: [...FULL_READ, 'leads:write'] },
} as const satisfies Record<string, { label: string; scopes: Scope[] }>;
export type PermissionSet = keyof typeof PERMISSION_SETS;
export const PERMISSION_SET_NAMES = Object.keys(PERMISSION_SETS) as PermissionSet[];

/** Scopes in the spec's table order, so `scopes` arrays read the same everywhere. */
export const sortScopes = (scopes: readonly string[]): string[] =>
  [...new Set(scopes)].sort((a, b) => SCOPES.indexOf(a as Scope) - SCOPES.indexOf(b as Scope));
