export { DemoModule } from './demo.module.js';
export { DemoService } from './demo.service.js';
export type { DemoSeedResult } from './demo.service.js';
