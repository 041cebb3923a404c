import { waitFor } from './receiver';

/** The environment entry that makes a spawned Node process open its inspector on a free loopback port. */
export const INSPECTABLE = { NODE_OPTIONS: '--inspect=127.0.0.1:0' } as const;

export interface LiveMemory {
  /** JavaScript objects alive after a full collection, and the memory they own outside the heap (Buffers), in bytes. */
  live: number;
  rss: number;
}

/**
 * The memory a spawned Node process (started with INSPECTABLE) holds alive, read through its inspector (the
 * Chrome DevTools Protocol, Node's public debugging interface): a full garbage collection first, so the figure is
 * what the process keeps, not what its collector has not yet reclaimed. RSS, by contrast, moves with when the
 * collector last ran and how much heap it grew to meanwhile (on a loaded machine, 60 MiB more for the same work).
 */
export async function inspectMemory(output: () => string): Promise<{ measure(): Promise<LiveMemory>; close(): void }> {
  // Node prints the inspector's address on stderr once it listens.
  const url = await waitFor(() => /Debugger listening on (ws:\/\/\S+)/.exec(output())?.[1], 'the inspector address', 60_000);
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error(`could not connect to the inspector at ${url}`));
  });
  let lastId = 0;
  const replies = new Map<number, { resolve(result: any): void; reject(e: Error): void }>();
  socket.onmessage = (m: MessageEvent) => {
    // Replies carry the id of their call; notifications (none asked for) carry none.
    const reply = JSON.parse(String(m.data)) as { id?: number; result?: unknown; error?: unknown };
    const pending = reply.id === undefined ? undefined : replies.get(reply.id);
    if (!pending) return;
    replies.delete(reply.id!);
    if (reply.error) pending.reject(new Error(`inspector: ${JSON.stringify(reply.error)}`));
    else pending.resolve(reply.result);
  };
  const call = (method: string, params: object = {}) =>
    new Promise<any>((resolve, reject) => {
      replies.set(++lastId, { resolve, reject });
      socket.send(JSON.stringify({ id: lastId, method, params }));
    });
  return {
    async measure() {
      await call('HeapProfiler.collectGarbage');
      const { result } = await call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true });
      // `external` includes `arrayBuffers` (Node's documentation of process.memoryUsage).
      const m = JSON.parse(result.value as string) as NodeJS.MemoryUsage;
      return { live: m.heapUsed + m.external, rss: m.rss };
    },
    close: () => socket.close(),
  };
}
