/**
 * Who may read what: no firm sees another (isolation-matrix), every key is held to its scopes (scope-matrix, auth),
 * keys behave as credentials in every process (key-credentials, keyed-read-statements), one spec file so the
 * service's modules load once. Only auth asks for a shared app; the others start and close their own: each its own
 * data folder, a second app or process on one database, clocks moved, timings or database-wide lock waits measured.
 */
import { closeSharedApps } from './support/shared-app';
import './access/isolation-matrix.cases';
import './access/scope-matrix.cases';
import './access/key-credentials.cases';
import './access/keyed-read-statements.cases';
import './access/auth.cases';

afterAll(closeSharedApps);
