/**
 * The pieces of OpenTelemetry's Node wiring we need without their packages: an AsyncLocalStorage
 * context manager (so a span started inside another span's callback is its child, and log lines
 * see the active span), and the W3C Trace Context header format (traceparent, tracestate) used to
 * carry a trace through the job queue (docs/api/content.md §6.3, docs/telemetry.md).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  ROOT_CONTEXT,
  createTraceState,
  isSpanContextValid,
  trace,
  type Context,
  type ContextManager,
  type SpanContext,
} from '@opentelemetry/api';

export class AsyncLocalContextManager implements ContextManager {
  private storage = new AsyncLocalStorage<Context>();

  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.storage.run(ctx, () => fn.apply(thisArg, args));
  }

  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const run = this.storage;
    const fn = target as unknown as (...a: unknown[]) => unknown;
    return function bound(this: unknown, ...a: unknown[]) {
      return run.run(ctx, () => fn.apply(this, a));
    } as unknown as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.storage.disable();
    this.storage = new AsyncLocalStorage<Context>();
    return this;
  }
}

/** W3C trace context as stored in a queued step (JSON-safe). */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The carrier for a span context; undefined for an invalid (no-op) one. */
export function carrierOf(sc: SpanContext): TraceCarrier | undefined {
  if (!isSpanContextValid(sc)) return undefined;
  const flags = (sc.traceFlags & 0xff).toString(16).padStart(2, '0');
  const state = sc.traceState?.serialize();
  return { traceparent: `00-${sc.traceId}-${sc.spanId}-${flags}`, ...(state ? { tracestate: state } : {}) };
}

/** A context whose parent is the remote span the carrier names; ROOT_CONTEXT when it names none. */
export function contextFromCarrier(carrier: Partial<TraceCarrier> | undefined | null): Context {
  const m = typeof carrier?.traceparent === 'string' ? TRACEPARENT.exec(carrier.traceparent.trim()) : null;
  if (!m) return ROOT_CONTEXT;
  const sc: SpanContext = {
    traceId: m[1] as string,
    spanId: m[2] as string,
    traceFlags: Number.parseInt(m[3] as string, 16),
    isRemote: true,
    ...(typeof carrier?.tracestate === 'string' && carrier.tracestate ? { traceState: createTraceState(carrier.tracestate) } : {}),
  };
  return isSpanContextValid(sc) ? trace.setSpanContext(ROOT_CONTEXT, sc) : ROOT_CONTEXT;
}
