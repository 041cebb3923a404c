// An S3-protocol server (s3rver) in a process of its own for the chaos run: `node s3-server.mjs DIR BUCKET`
// prints {"port":N} once it listens on 127.0.0.1, and stops on SIGTERM.
import S3rver from 's3rver';

const [directory, bucket] = process.argv.slice(2);
const server = new S3rver({ port: 0, address: '127.0.0.1', directory, silent: true, configureBuckets: [{ name: bucket }] });
const { port } = await server.run();
process.stdout.write(`${JSON.stringify({ port })}\n`);
process.once('SIGTERM', () => {
  server.close().finally(() => process.exit(0));
});
