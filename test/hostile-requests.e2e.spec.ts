import { closeSharedApps } from './support/shared-app';
import './hostile-requests/hostile-input.cases';
import './hostile-requests/path-ids.cases';
import './hostile-requests/prototype-members.cases';
import './hostile-requests/fuzz-findings.cases';
import './hostile-requests/link-near-misses.cases';
import './hostile-requests/refusals-readable.cases';
import './hostile-requests/lingering-connections.cases';

/**
 * Requests no well-behaved client sends: NUL bytes and broken text, prototype-named members, ids that cannot
 * exist, fuzz findings, mistyped recording links, and bodies still arriving after their refusal. One spec file so
 * the service's modules load once (test/support/shared-app.ts); the cases scoped to their own firms share one app.
 */
afterAll(closeSharedApps);
