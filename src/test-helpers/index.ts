export { TestHelpersModule } from './test-helpers.module.js';
