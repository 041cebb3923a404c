// Builds dist/ only when it is missing or older than a source file, so `npm start`
// and `npm run cli` start at once on a built, unchanged tree. The build's own
// output goes to stderr: a CLI run with --json keeps stdout for its one object.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const outputs = ['dist/src/main.js', 'dist/src/cli/main.js'];
const inputs = ['src', 'migrations', 'tsconfig.json', 'tsconfig.build.json', 'nest-cli.json', 'package-lock.json'];

const mtime = (path) => {
  try {
    return statSync(join(root, path)).mtimeMs;
  } catch {
    return null;
  }
};

function newest(path) {
  const full = join(root, path);
  const stat = statSync(full, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(full).reduce((m, name) => Math.max(m, newest(join(path, name))), stat.mtimeMs);
}

const built = Math.min(...outputs.map((o) => mtime(o) ?? -1));
if (built < 0 || inputs.some((i) => newest(i) > built)) {
  process.stderr.write('building dist/ (sources changed since the last build)\n');
  const r = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
