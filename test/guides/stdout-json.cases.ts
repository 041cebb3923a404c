import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createTestDatabase } from '../support/database';
import { requestAt } from '../support/http';
import { freePort } from '../support/net';
import { waitFor } from '../support/receiver';
import { TEST_INTERNAL_TOKEN, TEST_SECRET_KEY } from '../support/test-app';

describe('the running service', () => {
  it('writes only JSON lines to stdout, from start to SIGTERM', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [resolve(process.cwd(), 'dist/src/main.js')], {
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: await createTestDatabase(),
        WEBHOOK_SECRET_KEY: TEST_SECRET_KEY,
        INTERNAL_API_TOKEN: TEST_INTERNAL_TOKEN,
        DATA_DIR: mkdtempSync(join(tmpdir(), 'stdout-json-')),
        PORT: String(port),
        LOG_LEVEL: 'debug',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    try {
      await waitFor(() => out.includes('"service started"'), `the started line (stderr: ${err})`, 30_000);
      const base = `http://127.0.0.1:${port}`;
      expect((await requestAt(base, 'GET', '/v1/account')).status).toBe(401);
      expect((await requestAt(base, 'GET', '/v1/nowhere')).status).toBe(404);
      await waitFor(() => out.includes('"statusCode":404'), 'the access line of the 404');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    const lines = out.split('\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    // The human banner is still there, on stderr.
    expect(err).toContain('Swagger UI:');
  });
});
