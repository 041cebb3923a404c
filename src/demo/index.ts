export { DemoModule } from './demo.module.js';
export { DemoService } from './demo.service.js';
export type { DemoSeedResult } from './demo.service.js';
export { DEMO_SETTINGS } from './demo-settings.js';
export { demoHistory } from './demo-history.js';
export { demoRecordingPath } from './demo-recordings.js';
export { simulatedCallDocument, type SimulatedCallPlan } from './simulated-call.js';
