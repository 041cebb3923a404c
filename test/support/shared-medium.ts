import type { Type } from '@nestjs/common';
import { newMediumService, type MediumService } from './medium';
import { OncePerEnv } from './once-per-env';

/** A view of a shared context: its owner, the group spec, closes it (closeSharedMediumServices). */
export type SharedMediumService<S> = Omit<MediumService<S>, 'close'>;

/**
 * One medium context for every case file of a group spec (test/support/shared-app.ts does the same for the e2e
 * tier). Jest gives each spec file its own module registry, so every file pays for loading the service's modules and
 * building its Nest context on a cloned database; a group spec (`test/medium/<group>.spec.ts`) imports its case files
 * (`test/medium/<group>/*.cases.ts`), and cases that need the same environment get the same context, each with its
 * own service under test. The group spec closes them all once its last case ran: `afterAll(closeSharedMediumServices)`.
 *
 * Only cases whose assertions are scoped to their own firms share: a case that moves the clock others would see,
 * passes its own database or worker modules, or reads the whole database keeps its own newMediumService.
 */
const contexts = new OncePerEnv<MediumService<unknown>>();

export async function sharedMediumService<S>(Service: Type<S>, env: Record<string, string> = {}): Promise<SharedMediumService<S>> {
  const { close: _ownedByTheGroup, ...shared } = await contexts.get(env, () => newMediumService<unknown>(Service, { env }));
  return { ...shared, sut: shared.module.get(Service) };
}

export function closeSharedMediumServices(): Promise<void> {
  return contexts.closeAll();
}
