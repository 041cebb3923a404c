import { DeleteObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { createFirm, type TestFirm } from '../support/factories';
import { startS3Server } from '../support/recording-stores';
import { getBytes, insertCall, upload } from '../support/recordings';
import { TcpProxy } from '../support/tcp-proxy';
import { startTestApp, TEST_INTERNAL_TOKEN, type TestApp } from '../support/test-app';

const MiB = 1024 * 1024;

/** What only the S3 store can show: a range is read from the bucket as a range, and a vanished object is a 404. */
describe('recordings on S3: ranges are served by the store', () => {
  let s3: Awaited<ReturnType<typeof startS3Server>>;
  let proxy: TcpProxy;
  let t: TestApp;
  let firm: TestFirm;
  const audio = Buffer.concat([Buffer.from('OggS'), randomBytes(4 * MiB)]);

  beforeAll(async () => {
    s3 = await startS3Server();
    const target = new URL(s3.endpoint);
    proxy = new TcpProxy(target.hostname, Number(target.port));
    await proxy.start();
    // The service reaches the bucket only through the proxy, which counts every byte the S3 server sends back.
    t = await startTestApp({ env: { ...s3.env, S3_ENDPOINT: `http://127.0.0.1:${proxy.port}`, INTERNAL_API_TOKEN: TEST_INTERNAL_TOKEN } });
    firm = await createFirm(t.app);
  });
  afterAll(async () => {
    await t?.close();
    await proxy?.cut();
    await s3?.close();
  });

  const recorded = async () => {
    const callId = `call_s3_${randomBytes(4).toString('hex')}`;
    await insertCall(t, firm.orgId, callId);
    expect((await upload(t, firm.orgId, callId, audio)).status).toBe(200);
    return callId;
  };

  it('a 1000-byte range reads about 1000 bytes from the bucket; the whole file reads all of it', async () => {
    const callId = await recorded();
    const path = `/v1/calls/${callId}/recording`;
    const start = 2 * MiB + 17;

    proxy.bytesFromTarget = 0;
    const part = await getBytes(t, path, { key: firm.keys.read, headers: { range: `bytes=${start}-${start + 999}` } });
    expect(part.status).toBe(206);
    expect(part.bytes.equals(audio.subarray(start, start + 1000))).toBe(true);
    // A HEAD and a ranged GET: headers and the 1000 bytes, nowhere near the 4 MiB object.
    expect(proxy.bytesFromTarget).toBeLessThan(16 * 1024);

    proxy.bytesFromTarget = 0;
    const whole = await getBytes(t, path, { key: firm.keys.read });
    expect(whole.bytes.equals(audio)).toBe(true);
    expect(proxy.bytesFromTarget).toBeGreaterThan(audio.length);
  });

  it('answers 404 when the object has gone from the bucket behind the row', async () => {
    const callId = await recorded();
    const [row] = await t.sql('SELECT storage_key FROM recordings WHERE org_id = $1 AND call_id = $2', [firm.orgId, callId]);
    const client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true });
    await client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: row.storage_key }));
    client.destroy();
    const r = await t.get(`/v1/calls/${callId}/recording`, { key: firm.keys.read });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('not_found');
  });
});
