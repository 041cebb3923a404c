import { GetObjectCommand, ListMultipartUploadsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storedFiles } from './recordings';

export type StoreKind = 'fs' | 's3';
/** Every recording test runs once per store: `describe.each(RECORDING_STORES)`. */
export const RECORDING_STORES: StoreKind[] = ['fs', 's3'];

const BUCKET = 'recordings';
/** s3rver's fixed credentials; the service finds them through the SDK's default chain (the environment). */
const S3RVER_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };
/** The SDK warns once on stderr that its 2027 releases will need Node 22; the tests run on Node 20. */
const QUIET_SDK = { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };

/**
 * One recording store for a test file: the settings to start the service
 * with, and a look inside the store from the outside (files under DATA_DIR,
 * or the bucket of a real S3-protocol server, s3rver, run in a child process:
 * test/support/s3rver-process.mjs).
 */
export interface StoreUnderTest {
  kind: StoreKind;
  /** DATA_DIR (always) and, for s3, RECORDING_STORE and the S3_* settings, as an operator would set them. */
  env: Record<string, string>;
  /** Every complete object's key, sorted. */
  objects(): Promise<string[]>;
  /** Bytes of the object under `key`, or null. */
  read(key: string): Promise<Buffer | null>;
  /**
   * Whether a write is under way in the store. fs: a tmp/ part exists. s3: a
   * multipart upload is pending (ListMultipartUploads); the service starts one
   * only once a 5 MiB part has filled, so a smaller body shows nothing here.
   */
  writing(): Promise<boolean>;
  /** Leftovers of writes that never completed: fs tmp/ parts; s3 multipart uploads neither completed nor aborted. */
  incomplete(): Promise<string[]>;
  close(): Promise<void>;
}

export async function startStore(kind: StoreKind): Promise<StoreUnderTest> {
  const dataDir = mkdtempSync(join(tmpdir(), `recordings-${kind}-`));
  return kind === 'fs' ? filesystemStore(dataDir) : await s3Store(dataDir);
}

function filesystemStore(dataDir: string): StoreUnderTest {
  const all = () => storedFiles(dataDir);
  return {
    kind: 'fs',
    env: { DATA_DIR: dataDir },
    objects: async () => all().filter((f) => !f.startsWith('tmp/')),
    read: async (key) => {
      const path = join(dataDir, 'recordings', key);
      return existsSync(path) ? readFileSync(path) : null;
    },
    writing: async () => all().some((f) => f.startsWith('tmp/')),
    incomplete: async () => all().filter((f) => f.startsWith('tmp/')),
    close: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

/**
 * A real S3-protocol server (s3rver) on a free port with one bucket, in a
 * child process (its buffers must not count as the service's memory); its
 * files live in a temp folder. Jest runs from the repository root.
 */
export async function startS3Server(): Promise<{ endpoint: string; bucket: string; env: Record<string, string>; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 's3rver-'));
  const child = spawn(process.execPath, [join(process.cwd(), 'test/support/s3rver-process.mjs'), dir, BUCKET], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  const { port } = JSON.parse(line) as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  // The in-process test app reads credentials from this process's environment, as the SDK's default chain does.
  Object.assign(process.env, S3RVER_CREDENTIALS, QUIET_SDK);
  return {
    endpoint,
    bucket: BUCKET,
    env: {
      RECORDING_STORE: 's3',
      S3_ENDPOINT: endpoint,
      S3_BUCKET: BUCKET,
      S3_FORCE_PATH_STYLE: 'true',
      ...S3RVER_CREDENTIALS,
      ...QUIET_SDK,
    },
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function s3Store(dataDir: string): Promise<StoreUnderTest> {
  const server = await startS3Server();
  const client = new S3Client({
    endpoint: server.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: S3RVER_CREDENTIALS.AWS_ACCESS_KEY_ID, secretAccessKey: S3RVER_CREDENTIALS.AWS_SECRET_ACCESS_KEY },
  });
  const objects = async () => {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, ContinuationToken: token }));
      keys.push(...(page.Contents ?? []).map((o) => o.Key!));
      token = page.NextContinuationToken;
    } while (token);
    return keys.sort();
  };
  // s3rver 3.7.1 lacks ListMultipartUploads; s3rver-process.mjs answers it from the server's own upload folders.
  const pending = async () => {
    const page = await client.send(new ListMultipartUploadsCommand({ Bucket: BUCKET }));
    return (page.Uploads ?? []).map((u) => `${u.Key} (multipart upload ${u.UploadId})`).sort();
  };
  return {
    kind: 's3',
    env: { DATA_DIR: dataDir, ...server.env },
    objects,
    read: async (key) => {
      if (!(await objects()).includes(key)) return null;
      const res = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
      return Buffer.from(await res.Body!.transformToByteArray());
    },
    writing: async () => (await pending()).length > 0,
    incomplete: pending,
    close: async () => {
      client.destroy();
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
