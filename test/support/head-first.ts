import { connect, type Socket } from 'node:net';

/**
 * A request whose head goes out alone: the body it announces is sent only
 * when the test says so, so a test can see what the server answers before
 * reading a byte of it (and whether it says `100 Continue`).
 */
export interface HeadOnly {
  method: string;
  target: string;
  /** Header lines as sent; announce the body here (Content-Length or Transfer-Encoding). */
  headers: [string, string][];
  /** Sent right after the head (the rest of what the head announces is sent only by send()). */
  body?: string;
}

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** One connection to the app, answers read one at a time (a 100 Continue is an answer of its own). */
export class HeadFirstConnection {
  private buffer = Buffer.alloc(0);
  private closed = false;
  private wake: (() => void) | null = null;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (d: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, d]);
      this.wake?.();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake?.();
    });
    // A reset after the answer (the server closing on a body it will not read) is expected.
    socket.on('error', () => undefined);
  }

  static open(baseUrl: string, head: HeadOnly): Promise<HeadFirstConnection> {
    const { port } = new URL(baseUrl);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        const lines = [`${head.method} ${head.target} HTTP/1.1`, 'Host: 127.0.0.1', ...head.headers.map(([n, v]) => `${n}: ${v}`)];
        socket.write(`${lines.join('\r\n')}\r\n\r\n${head.body ?? ''}`, 'latin1');
        resolve(new HeadFirstConnection(socket));
      });
      socket.once('error', reject);
    });
  }

  /** The next complete answer; rejects when none comes within `timeoutMs` (the server is waiting for the body). */
  async next(timeoutMs = 10_000): Promise<Answer> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const answer = this.take();
      if (answer) return answer;
      if (this.closed) throw new Error('the connection closed without a complete answer');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no answer within ${timeoutMs} ms: the server waits for the body`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  /** Whether the server has closed the connection (or closes it within `timeoutMs`). */
  async closes(timeoutMs = 5_000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - Date.now());
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return this.closed;
  }

  send(bytes: Buffer | string): void {
    this.socket.write(bytes);
  }

  close(): void {
    this.socket.destroy();
  }

  /** Cuts one answer (head, and its Content-Length of body) off the front of what arrived. */
  private take(): Answer | null {
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end < 0) return null;
    const [statusLine, ...lines] = this.buffer.subarray(0, end).toString('latin1').split('\r\n');
    const headers = new Headers();
    for (const line of lines) headers.append(line.slice(0, line.indexOf(':')).trim(), line.slice(line.indexOf(':') + 1).trim());
    const length = Number(headers.get('content-length') ?? 0);
    if (this.buffer.length < end + 4 + length) return null;
    const text = this.buffer.subarray(end + 4, end + 4 + length).toString('utf8');
    this.buffer = this.buffer.subarray(end + 4 + length);
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
    return { status, headers, body: (headers.get('content-type') ?? '').includes('json') && text ? JSON.parse(text) : text };
  }
}

/** The answer to a request whose announced body is never sent: what the server says before reading any of it. */
export async function answerBeforeBody(baseUrl: string, head: HeadOnly, timeoutMs?: number): Promise<Answer & { closed: boolean }> {
  const c = await HeadFirstConnection.open(baseUrl, head);
  try {
    const answer = await c.next(timeoutMs);
    return { ...answer, closed: answer.headers.get('connection') === 'close' };
  } finally {
    c.close();
  }
}
