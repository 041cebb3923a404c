// Preloaded into a child process (NODE_OPTIONS=--require <this file>): when the process exits, writes the name of
// every package it loaded through require (one a line) to LOADED_PACKAGES_FILE. The compiled service is CommonJS, and
// so are the packages it defers with import() (undici, nodemailer, OpenTelemetry's SDK, the AWS SDK, @fastify/static).
const { writeFileSync } = require('node:fs');

process.on('exit', () => {
  const names = new Set();
  for (const file of Object.keys(require.cache)) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
    if (m) names.add(m[1]);
  }
  writeFileSync(process.env.LOADED_PACKAGES_FILE, [...names].sort().join('\n') + '\n');
});
