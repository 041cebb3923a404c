export default async function globalTeardown() {
  if (globalThis.__xminHolder) await globalThis.__xminHolder();
  if (globalThis.__testPg) await globalThis.__testPg.stop();
}
