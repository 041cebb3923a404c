import { jest } from '@jest/globals';
import { StderrLogger } from './stderr-logger';

describe('StderrLogger', () => {
  it('writes warnings and errors to stderr, never to stdout (where a command prints its JSON)', () => {
    const out = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const err = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const logger = new StderrLogger({ logLevels: ['error', 'warn'] });
      logger.warn('the database moved to a new history', 'Database');
      logger.error('could not read', 'Database');
      logger.log('not at this level');
      expect(out).not.toHaveBeenCalled();
      expect(err.mock.calls.map(([line]) => String(line))).toEqual([
        expect.stringContaining('the database moved to a new history'),
        expect.stringContaining('could not read'),
      ]);
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
  });
});
