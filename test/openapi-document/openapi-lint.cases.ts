import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sharedTestApp } from '../support/shared-app';
import type { TestApp } from '../support/test-app';

const run = promisify(execFile);
const ROOT = process.cwd();
const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);

/** Runs a linter CLI; a non-zero exit is a finding, not a crash, so its output is returned either way. */
async function lint(cmd: string, args: string[], cwd: string): Promise<string> {
  try {
    const { stdout, stderr } = await run(cmd, args, { cwd, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });
    return `${stdout}\n${stderr}`;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    return `${e.stdout ?? ''}\n${e.stderr ?? e.message}`;
  }
}

let t: TestApp;
let dir: string;

beforeAll(async () => {
  t = await sharedTestApp();
  const r = await t.get('/v1/openapi.json');
  expect(r.status).toBe(200);
  dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
  writeFileSync(join(dir, 'openapi.json'), r.text);
  // Redocly reads its config and its ignore file from the folder it lints in.
  copyFileSync(join(ROOT, 'redocly.yaml'), join(dir, 'redocly.yaml'));
  copyFileSync(join(ROOT, 'test/support/openapi-lint-ignore.yaml'), join(dir, '.redocly.lint-ignore.yaml'));
});

describe('the served OpenAPI document passes both linters with no error and no warning', () => {
  it('Spectral, oas ruleset', async () => {
    const out = await lint(
      bin('spectral'),
      ['lint', join(dir, 'openapi.json'), '--ruleset', join(ROOT, '.spectral.yaml'), '--format', 'json', '--quiet'],
      dir,
    );
    const findings = JSON.parse(out.slice(out.indexOf('['), out.lastIndexOf(']') + 1)) as {
      code: string;
      message: string;
      path: string[];
    }[];
    expect(findings.map((f) => `${f.code} ${f.path.join('.')}: ${f.message}`)).toEqual([]);
  });

  it('Redocly CLI, recommended rules', async () => {
    const out = await lint(bin('redocly'), ['lint', 'openapi.json', '--format', 'json'], dir);
    const report = JSON.parse(out.slice(out.indexOf('{'), out.lastIndexOf('}') + 1)) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
    };
    expect(report.problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });
});
