/**
 * What an integrator runs as written: the reference integrations in examples/, the README's integration guide, the
 * compiled service's stdout (JSON lines only), and `npm test` on a Node older than the README names. One spec file, so
 * the service's modules load once for all of them (test/support/shared-app.ts). The examples and the guide each take
 * an app of their own configuration; stdout-json spawns the compiled service instead. */
import { closeSharedApps } from './support/shared-app';
import './guides/examples.cases';
import './guides/integration-guide.cases';
import './guides/stdout-json.cases';
import './guides/supported-node.cases';

afterAll(closeSharedApps);
