/** The secrets every test app, service process and medium context of the run shares. */
export const TEST_SECRET_KEY = Buffer.alloc(32, 7).toString('base64');
export const TEST_INTERNAL_TOKEN = 'test-internal-token-0123456789';
