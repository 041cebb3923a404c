/** The secrets every test app, service process and medium context of the run shares. */
export const TEST_SECRET_KEY = Buffer.alloc(32, 7).toString('base64');
export const TEST_INTERNAL_TOKEN = 'test-internal-token-0123456789';

/**
 * Headers every test request carries (test/support/http.ts), shaped like credentials of each kind the end-of-run
 * log scan knows (secret-shapes.json): an API key, a webhook secret, a Bearer credential and a recording link. A log
 * line or a span that copied a header as sent would hold one and fail the run. They belong to no firm.
 */
export const CREDENTIAL_SHAPED_HEADERS: Readonly<Record<string, string>> = {
  'user-agent':
    `test-client/1.0 key=svc_live_${'k'.repeat(43)} secret=whsec_${'c2VjcmV0'.repeat(4)} ` +
    `auth=Bearer ${'b'.repeat(24)} link=/v1/recordings/${'t'.repeat(43)}`,
  // Would be echoed as the request id into every log line, error body and span if it were kept.
  'x-request-id': `svc_test_${'r'.repeat(43)}`,
};
