import { closeSharedApps } from './support/shared-app';
import './owner-console/console.cases';
import './owner-console/console-browser.cases';
import './owner-console/console-processes.cases';

/**
 * The endpoint owner's console: its rules over HTTP, the same flows in Chromium, and its sessions across api
 * processes. One module load for all.
 */
afterAll(closeSharedApps);
