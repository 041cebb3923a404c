import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Server } from 'node:http';
import { Database } from '../../src/database/sql';

interface QueryingClient {
  prototype: { query: (...args: unknown[]) => unknown };
}

/**
 * Records the text of every SQL statement a request of an in-process test app
 * issues, from the moment its request reaches the server (each request runs in
 * its own async context, which every statement it starts inherits; work begun
 * outside a request, such as timers set up at start, is not counted). Statements
 * of all test apps in this Jest worker share the pg client class, so `all`
 * lists every statement issued while recording, inside a request or not.
 */
export class StatementCounter {
  private readonly context = new AsyncLocalStorage<string[]>();
  private readonly perRequest: string[][] = [];
  readonly all: string[] = [];
  /** `all` with each statement's bind values, to plan a statement again (EXPLAIN) as it was run. */
  readonly allWithValues: { text: string; values: unknown[] }[] = [];
  private restore: (() => void)[] = [];

  /** Starts recording for `app` (and for statements outside requests); call once per app. */
  attach(app: NestFastifyApplication): void {
    const server = app.getHttpServer() as Server;
    const listeners = server.listeners('request') as ((...args: unknown[]) => void)[];
    server.removeAllListeners('request');
    for (const listener of listeners) {
      server.on('request', (req, res) => {
        const statements: string[] = [];
        this.perRequest.push(statements);
        this.context.run(statements, () => listener.call(server, req, res));
      });
    }
    if (this.restore.length > 0) return;
    const client = app.get(Database).poolClientClass() as unknown as QueryingClient;
    const original = client.prototype.query;
    const { context, all, allWithValues } = this;
    client.prototype.query = function (this: unknown, ...args: unknown[]) {
      const config = args[0] as string | { text: string; values?: unknown[] };
      const text = typeof config === 'string' ? config : config.text;
      const values = (typeof config === 'string' ? args[1] : config.values) as unknown[] | undefined;
      context.getStore()?.push(text);
      all.push(text);
      allWithValues.push({ text, values: Array.isArray(values) ? values : [] });
      return original.apply(this, args);
    };
    this.restore.push(() => (client.prototype.query = original));
  }

  /** The statements of the last request any attached app received. */
  lastRequest(): string[] {
    return [...(this.perRequest.at(-1) ?? [])];
  }

  detach(): void {
    for (const undo of this.restore) undo();
    this.restore = [];
  }
}
