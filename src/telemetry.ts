/**
 * OpenTelemetry spans (docs/api/content.md §6.3, docs/telemetry.md): service.heartbeat every 15 s,
 * workflow.execute, job.submit, job.process and comfyui.execute. Traces go to an OTLP/HTTP
 * collector (JSON encoding) when OTEL_EXPORTER_OTLP_ENDPOINT is set; tests install an in-memory
 * exporter. With neither, the global no-op tracer makes every span free. Automatic HTTP/Redis
 * instrumentation stays off; log lines get trace_id/span_id from the active span (traceLogFields).
 */
import { context, ROOT_CONTEXT, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, SimpleSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import type { Config } from './config.ts';
import { AsyncLocalContextManager, carrierOf, contextFromCarrier, type TraceCarrier } from './telemetry-context.ts';

export type { TraceCarrier } from './telemetry-context.ts';

export const HEARTBEAT_INTERVAL_MS = 15_000;

let provider: TracerProvider | undefined;

/** Installs the global tracer provider once per process. */
export function initTelemetry(opts: { serviceName: string; otlpEndpoint?: string; exporter?: SpanExporter; batchDelayMs?: number }) {
  if (provider) return provider;
  const processors = [];
  if (opts.exporter) processors.push(new SimpleSpanProcessor({ exporter: opts.exporter }));
  if (opts.otlpEndpoint) {
    const url = `${opts.otlpEndpoint.replace(/\/+$/, '')}/v1/traces`;
    processors.push(
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url }),
        ...(opts.batchDelayMs ? { scheduledDelayMillis: opts.batchDelayMs } : {}),
      }),
    );
  }
  if (processors.length === 0) return undefined;
  provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': opts.serviceName }),
    spanProcessors: processors,
  });
  // Spans started inside a span's callback become its children; log lines see the active span.
  context.setGlobalContextManager(new AsyncLocalContextManager());
  trace.setGlobalTracerProvider(provider);
  return provider;
}

export async function shutdownTelemetry() {
  const p = provider;
  provider = undefined;
  trace.disable();
  context.disable();
  await p?.shutdown();
}

/** What a process's telemetry reads from the configuration. */
export type ProcessTelemetryOptions = Pick<
  Config,
  'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_SERVICE_NAME' | 'OTEL_BSP_SCHEDULE_DELAY' | 'TELEMETRY_HEARTBEAT_MS'
>;

/**
 * Telemetry for a process, from configuration: the SDK when OTEL_EXPORTER_OTLP_ENDPOINT is set,
 * and a service.heartbeat for each service the process runs. Returns the stop function (stops
 * the heartbeats and flushes what is buffered).
 */
export function startProcessTelemetry(config: ProcessTelemetryOptions, services: string[]): () => Promise<void> {
  if (!config.OTEL_EXPORTER_OTLP_ENDPOINT) return async () => undefined;
  initTelemetry({
    serviceName: config.OTEL_SERVICE_NAME ?? (services.length === 1 ? `atelier-${services[0]}` : 'atelier'),
    otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
    batchDelayMs: config.OTEL_BSP_SCHEDULE_DELAY,
  });
  const stops = services.map((s) => startHeartbeat(s, config.TELEMETRY_HEARTBEAT_MS));
  return async () => {
    for (const stop of stops) stop();
    await shutdownTelemetry();
  };
}

/** trace_id and span_id of the active span, for log lines (pino mixin); {} outside a span. */
export function traceLogFields(): Record<string, string> {
  const sc = trace.getActiveSpan()?.spanContext();
  return sc && trace.isSpanContextValid(sc) ? { trace_id: sc.traceId, span_id: sc.spanId } : {};
}

/** The W3C trace context of the active span, to store in a queued step; undefined outside a span. */
export function currentTraceCarrier(): TraceCarrier | undefined {
  const span = trace.getActiveSpan();
  return span ? carrierOf(span.spanContext()) : undefined;
}

/** The parent context a stored carrier names (a step's submitting trace). */
export function parentFromCarrier(carrier: Partial<TraceCarrier> | undefined | null): Context {
  return contextFromCarrier(carrier);
}

export function tracer(): Tracer {
  return trace.getTracer('atelier');
}

/**
 * Runs `fn` inside a span, the active span while `fn` runs (child of the active one, or of
 * `parent` when given); a thrown error marks the span (error=true, error.message) and rethrows.
 */
export async function withSpan<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>, parent?: Context): Promise<T> {
  const parentCtx = parent ?? context.active() ?? ROOT_CONTEXT;
  const span = tracer().startSpan(name, { attributes }, parentCtx);
  try {
    const result = await context.with(trace.setSpan(parentCtx, span), () => fn(span));
    span.setAttribute('error', false);
    return result;
  } catch (err) {
    span.setAttributes({ error: true, 'error.message': err instanceof Error ? err.message : String(err) });
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw err;
  } finally {
    span.end();
  }
}

/** service.heartbeat every interval; returns a stop function. */
export function startHeartbeat(service: string, intervalMs = HEARTBEAT_INTERVAL_MS): () => void {
  const started = Date.now();
  const beat = () => {
    tracer()
      .startSpan('service.heartbeat', {
        attributes: {
          'service.name': service,
          'service.status': 'running',
          'service.uptime_seconds': Math.round((Date.now() - started) / 1000),
        },
      })
      .end();
  };
  beat();
  const timer = setInterval(beat, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
