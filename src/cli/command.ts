import type { INestApplicationContext } from '@nestjs/common';

/** A problem with what the user typed (exit 2) or asked for (exit 1); shown as is. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export interface FlagSpec {
  /** string (default), boolean, or list (comma-separated string). */
  type?: 'string' | 'boolean';
  required?: boolean;
  description: string;
}

export interface CliContext {
  app: INestApplicationContext;
  flags: Record<string, string | boolean | undefined>;
  /** Reads a file path, or stdin for "-". */
  readInput(pathOrDash: string): Promise<string>;
}

export interface CliCommand {
  /** e.g. "org create" */
  name: string;
  summary: string;
  flags: Record<string, FlagSpec>;
  /** Returns the one JSON object printed with --json. */
  run(ctx: CliContext): Promise<Record<string, unknown>>;
  /** Human-readable form; defaults to pretty JSON. */
  human?(result: Record<string, unknown>): string;
}

export function str(ctx: CliContext, name: string): string | undefined {
  const v = ctx.flags[name];
  return typeof v === 'string' ? v : undefined;
}

export function req(ctx: CliContext, name: string): string {
  const v = str(ctx, name);
  if (v === undefined || v === '') throw new CliError(`--${name} is required`, 2);
  return v;
}

/** The --mode flag every test-mode-aware command shares: the flag's help text. */
export const MODE_FLAG: FlagSpec = { description: 'live (default) or test: test-mode data is kept apart from live data' };

/** --mode as livemode: live (the default) is true, test is false; anything else is a usage error. */
export function livemodeFlag(ctx: CliContext): boolean {
  const v = str(ctx, 'mode');
  if (v === undefined || v === 'live') return true;
  if (v === 'test') return false;
  throw new CliError(`--mode must be live or test, not "${v}"`, 2);
}
