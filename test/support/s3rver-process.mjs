// An S3-protocol server (s3rver) in a process of its own, so its memory and CPU are not counted against
// the service under test: `node s3rver-process.mjs DIR BUCKET` prints {"port":N} once it listens.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import S3rver from 's3rver';

const S3Error = createRequire(import.meta.url)('s3rver/lib/models/error');
const [directory, bucket] = process.argv.slice(2);
const server = new S3rver({ port: 0, address: '127.0.0.1', directory, silent: true, configureBuckets: [{ name: bucket }] });

/**
 * s3rver 3.7.1 keeps a multipart upload in DIR/BUCKET/._S3rver_uploads/UPLOAD_ID/ (the key in `key`, a
 * file per part) but answers ListMultipartUploads with NotImplemented and AbortMultipartUpload with 405,
 * so a test could neither see a pending upload through the API nor see the service abort one. These two
 * operations fill that gap over s3rver's own folders, as AWS S3 and MinIO answer them (without
 * signature checks: a loopback test server).
 */
const uploadsDir = join(directory, bucket, '._S3rver_uploads');
const pendingUploads = () =>
  existsSync(uploadsDir)
    ? readdirSync(uploadsDir)
        .filter((id) => existsSync(join(uploadsDir, id, 'key')))
        .map((id) => ({ Key: readFileSync(join(uploadsDir, id, 'key'), 'utf8'), UploadId: id }))
    : [];

async function multipartUploads(ctx, next) {
  const [, name, key] = /^\/([^/]+)\/?(.*)$/.exec(ctx.path) ?? [];
  if (name !== bucket) return next();
  if (ctx.method === 'GET' && key === '' && 'uploads' in ctx.query) {
    ctx.body = {
      ListMultipartUploadsResult: {
        '@': { xmlns: 'http://s3.amazonaws.com/doc/2006-03-01/' },
        Bucket: bucket,
        IsTruncated: false,
        Upload: pendingUploads(),
      },
    };
    return;
  }
  if (ctx.method === 'DELETE' && key !== '' && typeof ctx.query.uploadId === 'string') {
    const upload = pendingUploads().find((u) => u.UploadId === ctx.query.uploadId && u.Key === decodeURIComponent(key));
    if (!upload) throw new S3Error('NoSuchUpload', 'The specified upload does not exist.', { UploadId: ctx.query.uploadId });
    rmSync(join(uploadsDir, upload.UploadId), { recursive: true, force: true });
    ctx.status = 204;
    return;
  }
  return next();
}
// Just before s3rver's router (after its logging, XML encoding and vhost handling).
server.middleware.splice(server.middleware.length - 1, 0, multipartUploads);

const { port } = await server.run();
process.stdout.write(`${JSON.stringify({ port })}\n`);
process.once('SIGTERM', () => {
  server.close().finally(() => process.exit(0));
});
