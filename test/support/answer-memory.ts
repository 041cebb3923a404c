import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { TestApp } from './test-app';

// What test/transcript-stalled-readers.e2e.spec.ts measures of a server holding answers its readers do not read.

export const MiB = 1024 * 1024;

/**
 * What the kernel can hold of an answer a client never reads, on loopback: the server's send buffer (autotuned up
 * to tcp_wmem's maximum) and the client's receive buffer (tcp_rmem's default; it grows only as the client reads).
 */
export function kernelBufferBytes(): number {
  const field = (file: string, i: number) => Number(readFileSync(`/proc/sys/net/ipv4/${file}`, 'utf8').trim().split(/\s+/)[i]);
  return field('tcp_wmem', 2) + field('tcp_rmem', 1);
}

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Heap and buffers in use, after full collections (buffers are freed off the main thread, hence the pause). */
export async function liveMemory(): Promise<{ live: number; rss: number }> {
  gc();
  await new Promise((resolve) => setTimeout(resolve, 200));
  gc();
  const m = process.memoryUsage();
  return { live: m.heapUsed + m.external, rss: m.rss };
}
export const mib = (n: number) => Math.round((n / MiB) * 10) / 10;

/**
 * Answers an app spooled to nameless files and still open (json-answer.ts): this process's descriptors on files of
 * the app's own spool folder (another test file that ran earlier in this Jest worker may have left others open).
 */
export const spooledAnswers = (app: TestApp) => {
  const folder = `${app.config.dataDir}/tmp/answers/`;
  return readdirSync('/proc/self/fd')
    .map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return '';
      }
    })
    .filter((target) => target.startsWith(folder)).length;
};
