import { connect } from 'node:net';
import { LINGER_MAX_BYTES, LINGER_MAX_MS } from '../../src/common/http/lingering-close';
import { IngestionService } from '../../src/ingestion';
import { fullCallDocument, internalEnv, nextCallId } from '../support/call-documents';
import { createFirm } from '../support/factories';
import { startTestApp, type TestApp } from '../support/test-app';
import { waitFor } from '../support/receiver';

// Each describe starts its own app: one sets its own bounds, the other stops its app.
const MiB = 1024 * 1024;

interface Held {
  answer: string;
  /** From the first byte of the answer to the server's FIN, and to the connection's end. */
  finAfterMs: number | null;
  closedAfterMs: number;
  bytesSent: number;
}

/**
 * A sender that reads its answer and goes on sending (a half-open socket: it
 * does not close when the server's FIN comes), every `everyMs` a piece of
 * `pieceBytes`, or as fast as the socket takes it (everyMs 0).
 */
function holdOn(baseUrl: string, head: string, everyMs: number, pieceBytes: number): Promise<Held> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve) => {
    let answer = '';
    let answeredAt: number | null = null;
    let finAt: number | null = null;
    let bytesSent = 0;
    const piece = Buffer.alloc(pieceBytes, 'a');
    const socket = connect({ port: Number(port), host: '127.0.0.1', allowHalfOpen: true }, () => {
      socket.write(head);
      const send = (): void => {
        if (socket.destroyed) return;
        bytesSent += piece.length;
        const more = socket.write(piece);
        if (everyMs > 0) setTimeout(send, everyMs);
        else if (more) setImmediate(send);
        else socket.once('drain', send);
      };
      send();
    });
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      answeredAt ??= Date.now();
      answer += d;
    });
    socket.on('end', () => (finAt = Date.now()));
    socket.on('error', () => undefined); // the reset once the server has closed: 'close' says when
    const giveUp = setTimeout(() => socket.destroy(), 120_000);
    socket.on('close', () => {
      clearTimeout(giveUp);
      const from = answeredAt ?? Date.now();
      resolve({ answer, finAfterMs: finAt === null ? null : finAt - from, closedAfterMs: Date.now() - from, bytesSent });
    });
  });
}

describe('a sender that goes on sending after its answer holds the connection no longer than the bounds', () => {
  const IDLE_MS = 2_000;
  let t: TestApp;
  let leadPath: string;

  beforeAll(async () => {
    // The whole-request bound is far off: only the lingering bounds can close these connections in time.
    t = await startTestApp({ env: { ...internalEnv, HTTP_IDLE_TIMEOUT_MS: String(IDLE_MS), HTTP_REQUEST_TIMEOUT_MS: '600000' } });
    const firm = await createFirm(t.app);
    // Through the pipeline's port: the 2 s idle bound also runs while an answer is being prepared.
    const ingested = await t.app.get(IngestionService).ingest(firm.orgId, fullCallDocument(), nextCallId(), { livemode: true });
    leadPath = `/v1/leads/${ingested.lead_id as string}`;
  });
  afterAll(() => t.close());

  const head = () =>
    `PATCH ${leadPath} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${100 * LINGER_MAX_BYTES}\r\n\r\n`;

  it('trickling: answered 401 at once, FIN at once, closed at the idle bound however steadily it sends', async () => {
    const r = await holdOn(t.baseUrl, head(), 100, 1024);
    expect(r.answer).toMatch(/^HTTP\/1\.1 401 [^]*\r\nconnection: close\r\n/i);
    expect(r.finAfterMs).not.toBeNull();
    expect(r.finAfterMs!).toBeLessThan(IDLE_MS / 2);
    // Bytes kept coming every 100 ms, so the idle bound itself never fired: the linger's own bound, equal to it, did.
    // (Counted from the answer's arrival, which a busy event loop may read late: hence the margin.)
    expect(r.closedAfterMs).toBeGreaterThanOrEqual(IDLE_MS - 500);
    expect(r.closedAfterMs).toBeLessThan(IDLE_MS + 5_000);
  });

  it(`flooding: closed once about LINGER_MAX_BYTES (${LINGER_MAX_BYTES / MiB} MiB) have come after the answer`, async () => {
    const r = await holdOn(t.baseUrl, head(), 0, 64 * 1024);
    expect(r.answer).toMatch(/^HTTP\/1\.1 401 /);
    expect(r.closedAfterMs).toBeLessThan(IDLE_MS);
    // Read up to the bound (what the socket buffers hold on either side may be counted as sent, never read).
    expect(r.bytesSent).toBeGreaterThan(LINGER_MAX_BYTES);
    expect(r.bytesSent).toBeLessThan(LINGER_MAX_BYTES + 16 * MiB);
  });
});

describe('a server that stops ends its lingering connections at once', () => {
  it('closes while a sender still trickles a refused body, long before the linger bound', async () => {
    // The default bounds: a linger of 30 s (LINGER_MAX_MS) that only the stop can cut short.
    const t = await startTestApp();
    const { port } = new URL(t.baseUrl);
    let answered = false;
    let closedAt: number | null = null;
    const socket = connect({ port: Number(port), host: '127.0.0.1', allowHalfOpen: true }, () => {
      socket.write(`PATCH /v1/leads/lead_x HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n`);
    });
    const drip = setInterval(() => socket.writable && socket.write('x'), 100);
    socket.on('data', () => (answered = true));
    socket.on('error', () => undefined);
    socket.on('close', () => (closedAt = Date.now()));
    try {
      await waitFor(() => answered, 'the 401');
      const stopping = Date.now();
      await t.close();
      await waitFor(() => closedAt !== null, 'the lingering connection to close');
      expect(closedAt! - stopping).toBeLessThan(LINGER_MAX_MS / 3);
    } finally {
      clearInterval(drip);
      socket.destroy();
    }
  });
});
