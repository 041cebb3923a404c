import { OncePerEnv } from './once-per-env';
import { startTestApp, type TestApp } from './test-app';

/**
 * One test app for every case file of a group spec. Jest gives each spec file its own module registry, so every file
 * pays for loading the service's modules and starting its app (3 to 5 s of a worker on the 2-core machine, more than
 * many files' own tests). A group spec (`test/<group>.e2e.spec.ts`) imports its case files (`test/<group>/*.cases.ts`),
 * each of which registers its `describe` blocks and asks for the app here; cases that need the same configuration get
 * the same app, and the group spec closes them all once its last case ran: `afterAll(closeSharedApps)`.
 *
 * Only cases whose assertions are scoped to their own firms share: a case that reads the whole process (metrics, the
 * log stream, the clock it moves, the pool it exhausts) starts its own app with startTestApp and closes it itself.
 */
const apps = new OncePerEnv<TestApp>();

export function sharedTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  return apps.get(env, () => startTestApp({ env }));
}

export function closeSharedApps(): Promise<void> {
  return apps.closeAll();
}
