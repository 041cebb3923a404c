/**
 * Test mode and test data: test keys and the data they see, waiting on the feed by mode, --mode in the CLI, the test
 * helpers' HTTP contract and their per-key budget. One file so the service's modules load once for all of them
 * (test/support/shared-app.ts); the cases that share an app ask for it there, the others start their own.
 */
import { closeSharedApps } from './support/shared-app';
import './test-data/test-mode.cases';
import './test-data/test-mode-wait.cases';
import './test-data/test-mode-cli.cases';
import './test-data/test-helpers.cases';
import './test-data/test-helper-budget.cases';

afterAll(closeSharedApps);
