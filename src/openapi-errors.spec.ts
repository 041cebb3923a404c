import { SERVICE_ERROR_CODES } from './openapi-errors.js';

describe('every problem code the service answers', () => {
  // External clients branch on these codes: each is kept, with its status, wherever it is declared.
  it('keeps the codes and statuses the API has always answered, each declared once', () => {
    const statuses = Object.fromEntries(Object.entries(SERVICE_ERROR_CODES).map(([code, a]) => [code, a.status]));
    expect(statuses).toEqual({
      invalid_request: 400,
      after_lost: 400,
      unauthorized: 401,
      insufficient_scope: 403,
      test_mode_only: 403,
      not_found: 404,
      method_not_allowed: 405,
      not_published: 409,
      status_conflict: 409,
      endpoint_disabled: 409,
      idempotency_key_in_use: 409,
      idempotency_key_reused: 422,
      payload_too_large: 413,
      unsupported_media_type: 415,
      rate_limited: 429,
      console_sign_in_required: 401,
      csrf_refused: 403,
      console_read_only: 403,
      service_unavailable: 503,
      internal_error: 500,
    });
  });
});
