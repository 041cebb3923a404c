// An S3-protocol server (s3rver) in a process of its own, so its memory and CPU are not counted against
// the service under test: `node s3rver-process.mjs DIR BUCKET` prints {"port":N} once it listens.
import S3rver from 's3rver';

const [directory, bucket] = process.argv.slice(2);
const server = new S3rver({ port: 0, address: '127.0.0.1', directory, silent: true, configureBuckets: [{ name: bucket }] });
const { port } = await server.run();
process.stdout.write(`${JSON.stringify({ port })}\n`);
process.once('SIGTERM', () => {
  server.close().finally(() => process.exit(0));
});
