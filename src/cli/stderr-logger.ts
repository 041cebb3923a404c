import { ConsoleLogger, type LogLevel } from '@nestjs/common';

/**
 * Nest's console logger with every level on stderr: a command's stdout carries its one JSON object only, even when
 * a service warns (Nest's own logger writes warnings to stdout).
 */
export class StderrLogger extends ConsoleLogger {
  protected override printMessages(
    messages: unknown[],
    context?: string,
    logLevel?: LogLevel,
    _stream?: 'stdout' | 'stderr',
    errorStack?: unknown,
    params?: Record<string, unknown>,
  ): void {
    super.printMessages(messages, context, logLevel, 'stderr', errorStack, params);
  }
}
