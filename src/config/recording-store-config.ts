/** Where recordings live: files under DATA_DIR (the embedded default) or an S3-compatible bucket. */
export type RecordingStoreConfig =
  | { kind: 'fs' }
  | {
      kind: 's3';
      bucket: string;
      /** S3_ENDPOINT: an S3-compatible server (MinIO, ...); null means AWS itself. */
      endpoint: string | null;
      region: string;
      /** S3_FORCE_PATH_STYLE: http://host/bucket/key addressing, which most self-hosted servers need. */
      forcePathStyle: boolean;
    };

/** Thrown for a bad store setting; loadConfig turns it into a ConfigError naming the variable. */
type Fail = (message: string) => never;

/** Credentials are not read here: the AWS SDK's default chain finds them (env, profile, instance role). */
export function recordingStoreConfig(env: NodeJS.ProcessEnv, fail: Fail): RecordingStoreConfig {
  const kind = (env.RECORDING_STORE || 'fs').toLowerCase();
  if (kind === 'fs') return { kind: 'fs' };
  if (kind !== 's3') return fail(`RECORDING_STORE must be fs or s3, got "${env.RECORDING_STORE}"`);
  const bucket = env.S3_BUCKET ?? '';
  if (!bucket) return fail('S3_BUCKET is required when RECORDING_STORE=s3');
  const endpoint = env.S3_ENDPOINT || null;
  if (endpoint !== null && !/^https?:\/\/[^/]/.test(endpoint)) return fail('S3_ENDPOINT must be an http or https URL');
  const pathStyle = (env.S3_FORCE_PATH_STYLE ?? '').toLowerCase();
  if (!['', 'true', 'false', '1', '0'].includes(pathStyle)) return fail(`S3_FORCE_PATH_STYLE must be true or false`);
  return {
    kind: 's3',
    bucket,
    endpoint,
    // A self-hosted server ignores the region, but the SDK needs one to sign requests.
    region: env.S3_REGION || env.AWS_REGION || 'us-east-1',
    forcePathStyle: pathStyle === 'true' || pathStyle === '1',
  };
}
