import { AsyncLocalStorage } from 'node:async_hooks';
import {
  INVALID_SPAN_CONTEXT,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  defaultTextMapGetter,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';

export { SpanKind, type Span };

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /**
   * A W3C traceparent to continue (an incoming header, or the one stored with an event). Without it the
   * span is a child of this app's active span, or a new trace.
   */
  parent?: string | null;
}

interface ActiveSpan {
  tracing: Tracing;
  span: Span;
}

/** The span each async flow is in. One store for the process; each entry names its app, so apps never share spans. */
const active = new AsyncLocalStorage<ActiveSpan>();
const propagator = new W3CTraceContextPropagator();

/**
 * This app's tracing: one tracer provider per app (never the global one), so two apps in one process
 * (the tests) export to their own receivers. `Tracing.OFF` (no OTLP endpoint set) starts nothing and
 * every call on it returns at once.
 */
export class Tracing {
  static readonly OFF = new Tracing(null);

  private readonly tracer: Tracer | null;

  constructor(private readonly provider: BasicTracerProvider | null) {
    this.tracer = provider?.getTracer('receptionist-api') ?? null;
  }

  get enabled(): boolean {
    return this.tracer !== null;
  }

  /** The span the current async flow of this app is in, if any. */
  activeSpan(): Span | undefined {
    const store = active.getStore();
    return store?.tracing === this ? store.span : undefined;
  }

  startSpan(name: string, opts: SpanOptions = {}): Span {
    if (!this.tracer) return trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
    return this.tracer.startSpan(name, { kind: opts.kind ?? SpanKind.INTERNAL, attributes: opts.attributes }, this.parentContext(opts));
  }

  /** Runs `fn` with `span` as this app's active span: spans started inside (SQL, the outbox) are its children. */
  runIn<T>(span: Span, fn: () => T): T {
    return active.run({ tracing: this, span }, fn);
  }

  /** `fn` inside a new span that ends when it settles (an error marks it failed, by class name only). Off: just `fn(null)`. */
  inSpan<T>(name: string, opts: SpanOptions, fn: (span: Span | null) => Promise<T>): Promise<T> {
    // Off: `fn` itself, no promise of ours around it.
    return this.tracer ? this.traced(name, opts, fn) : fn(null);
  }

  private async traced<T>(name: string, opts: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
    const span = this.startSpan(name, opts);
    try {
      return await this.runIn(span, () => fn(span));
    } catch (err) {
      markFailed(span, err);
      throw err;
    } finally {
      span.end();
    }
  }

  /** Flushes what is batched and stops exporting (app close). */
  async shutdown(): Promise<void> {
    await this.provider?.shutdown();
  }

  private parentContext(opts: SpanOptions): Context {
    if (opts.parent) return propagator.extract(ROOT_CONTEXT, { traceparent: opts.parent }, defaultTextMapGetter);
    const parent = this.activeSpan();
    return parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
  }
}

/** The app tracing whose span the current async flow is in (the SQL hook is process-wide and finds its app here). */
export function currentTrace(): ActiveSpan | undefined {
  return active.getStore();
}

/** The W3C traceparent naming `span`, or null for a span that names nothing (tracing off). */
export function traceparentOf(span: Span | null | undefined): string | null {
  const ctx = span?.spanContext();
  if (!ctx || !trace.isSpanContextValid(ctx)) return null;
  return `00-${ctx.traceId}-${ctx.spanId}-0${(ctx.traceFlags & 1).toString(16)}`;
}

/** Only the error's class name: messages can carry values (a statement's parameters, a URL). */
export function markFailed(span: Span, err: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.name : 'error' });
}
