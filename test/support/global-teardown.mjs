export default async function globalTeardown() {
  if (globalThis.__testPg) await globalThis.__testPg.stop();
}
