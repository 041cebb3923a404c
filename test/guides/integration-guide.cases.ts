import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createFirm } from '../support/factories';
import { freePort } from '../support/net';
import { sharedTestApp } from '../support/shared-app';
import { TEST_SECRET_KEY, type TestApp } from '../support/test-app';

/** The README's "Build your integration" block, pointed at this service, a live key of its firm and a free receiver port. */
function readmeGuide(base: string, key: string, hookPort: number): string {
  const readme = readFileSync(resolve(process.cwd(), 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Build your integration'));
  const start = section.indexOf('```sh\n') + 6;
  const block = section.slice(start, section.indexOf('\n```', start));
  const pointed = block.replace(/^export API=.*$/m, `export API=${base} KEY=${key}`).replace(/^HOOK_PORT=4000$/m, `HOOK_PORT=${hookPort}`);
  // Both lines must have been found: a guide rewritten without them would otherwise run against port 3000.
  expect(pointed).toContain(`KEY=${key}`);
  expect(pointed).toContain(`HOOK_PORT=${hookPort}`);
  return pointed;
}

/**
 * Runs a script in bash (-euo pipefail) in its own process group, and ends the whole group afterwards: a step that
 * fails leaves no receiver or listen running.
 */
function runScript(
  script: string,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
    cwd: process.cwd(),
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const endGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // the group has already ended
    }
  };
  const timer = setTimeout(endGroup, timeoutMs);
  return new Promise((done) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      endGroup();
      done({ code, stdout, stderr });
    }),
  );
}

describe("the README's integration guide", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await sharedTestApp();
  });

  it('runs as written: a test key, listen to a verifying receiver, a simulated call, its events, the lead contacted, then a live key', async () => {
    const firm = await createFirm(t.app);
    const script = readmeGuide(t.baseUrl, firm.keys['read-update-leads'], await freePort());
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      // The CLI (`npm run -s cli`) reaches the service's database, as it does on a laptop through DATA_DIR.
      DATABASE_URL: t.databaseUrl,
      WEBHOOK_SECRET_KEY: TEST_SECRET_KEY,
      LOG_LEVEL: 'warn',
    };
    const run = await runScript(script, env, 120_000);
    expect({ code: run.code, stderr: run.stderr.slice(-2000) }).toEqual({ code: 0, stderr: expect.any(String) });

    // The receiver writes a line only after standardwebhooks verified the delivery with the secret listen signed with.
    const handled = run.stdout
      .split('\n')
      .filter((l) => l.startsWith('{"id":"evt_'))
      .map((l) => JSON.parse(l));
    const byType = Object.fromEntries(handled.map((h) => [h.type, h]));
    expect(byType).toEqual({
      'call.completed': { id: expect.stringMatching(/^evt_/), type: 'call.completed', via: 'webhook', action: 'handled' },
      'lead.created': { id: expect.stringMatching(/^evt_/), type: 'lead.created', via: 'webhook', action: 'handled' },
      // The guide's PATCH used the receiver's own key: verified, and recognised as its echo.
      'lead.updated': { id: expect.stringMatching(/^evt_/), type: 'lead.updated', via: 'webhook', action: 'skipped-echo' },
    });
    // listen forwarded each of them, and the receiver accepted each (200).
    const forwarded = run.stdout
      .split('\n')
      .filter((l) => l.startsWith('{"kind":"forwarded"'))
      .map((l) => JSON.parse(l));
    expect(forwarded.map((f) => [f.type, f.status, f.ok]).sort()).toEqual([
      ['call.completed', 200, true],
      ['lead.created', 200, true],
      ['lead.updated', 200, true],
    ]);
    // The call and transcript were read, the lead marked contacted; the live key sees no test call and may not simulate.
    expect(run.stdout).toMatch(/"category": "new_injury_lead",\s*"outcome": "connected"/);
    expect(run.stdout).toContain('"segment":"intake"');
    expect(run.stdout).toMatch(/"changed": true,\s*"status": "contacted"/);
    expect(run.stdout).toMatch(/^404$/m);
    expect(run.stdout).toMatch(/^test_mode_only$/m);
  });
});
