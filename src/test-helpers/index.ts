export { TestHelpersModule } from './test-helpers.module.js';
export { TestHelpersService } from './test-helpers.service.js';
