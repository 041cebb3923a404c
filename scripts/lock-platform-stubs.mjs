// The npm mirror this project is built on serves only the packages it needs for
// linux-x64, so `npm install` drops the other platforms' optional binaries from
// package-lock.json and `npm ci` then refuses the lock as out of sync. This adds
// those optional entries back, gated by os/cpu, so `npm ci` skips them everywhere
// they do not apply. Run after any `npm install`: `node scripts/lock-platform-stubs.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';

const OS = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openharmony', 'sunos', 'aix', 'netbsd', 'openbsd'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64', 'wasm32', 'mips64el'];

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const pkgs = lock.packages;
let added = 0;

for (const [where, entry] of Object.entries(pkgs)) {
  for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${where ? where + '/' : ''}node_modules/${name}`;
    if (pkgs[nested] || pkgs[`node_modules/${name}`]) continue;
    const tokens = name.split('/').pop().split('-');
    const os = OS.filter((o) => tokens.includes(o));
    const cpu = CPU.filter((c) => tokens.includes(c));
    if (os.length === 0 && cpu.length === 0) continue; // not a platform binary: leave npm's verdict alone
    const stub = { version: range.replace(/^[\^~=]/, ''), optional: true };
    if (entry.dev) stub.dev = true;
    if (os.length) stub.os = os;
    if (cpu.length) stub.cpu = cpu;
    if (tokens.includes('musl')) stub.libc = ['musl'];
    else if (tokens.includes('gnu') || tokens.includes('gnueabihf')) stub.libc = ['glibc'];
    pkgs[`node_modules/${name}`] = stub;
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(pkgs).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)));
writeFileSync(path, JSON.stringify(lock, null, 2) + '\n');
console.error(`lock-platform-stubs: ${added} platform-gated optional entries added`);
