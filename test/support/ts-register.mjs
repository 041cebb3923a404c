// `node --import ./test/support/ts-register.mjs file.ts`: runs this repository's TypeScript sources (or a copy of
// them under the repository, such as one in .test-data/) through ts-hooks.mjs, with no build.
import { register } from 'node:module';

register('./ts-hooks.mjs', import.meta.url);
