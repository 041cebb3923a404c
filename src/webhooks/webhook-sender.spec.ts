import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { WebhookSender } from './webhook-sender';

describe('WebhookSender refusing a private target', () => {
  afterEach(() => jest.restoreAllMocks());

  it('records the spec\'s "disallowed address" and tells the operator the setting once per process', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const sender = new WebhookSender({ allowPrivateTargets: false });
    try {
      for (const url of ['https://127.0.0.1:9/hook', 'http://hooks.example.com/hook', 'https://[::1]:9/hook']) {
        expect(await sender.post(url, {}, '{}')).toEqual({
          statusCode: null,
          durationMs: null,
          error: 'disallowed address',
          responseBody: null,
        });
      }
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toContain('WEBHOOK_ALLOW_PRIVATE_TARGETS=true');
    } finally {
      await sender.close();
    }
  });

  it('says nothing for a failure that is not about the address', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const sender = new WebhookSender({ allowPrivateTargets: false });
    try {
      expect((await sender.post('not a url', {}, '{}')).error).toBe('invalid url');
      expect(warn).not.toHaveBeenCalled();
    } finally {
      await sender.close();
    }
  });
});
