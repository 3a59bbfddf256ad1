/**
 * OpenTelemetry spans (content-service.md §6.3): service.heartbeat every 15 s, workflow.execute,
 * job.submit and job.process. Traces go to an OTLP/HTTP collector when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set; tests install an in-memory exporter. With neither, the
 * global no-op tracer makes every span free. Automatic HTTP/Redis instrumentation stays off.
 */
import { SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, SimpleSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';

export const HEARTBEAT_INTERVAL_MS = 15_000;

let provider: TracerProvider | undefined;

/** Installs the global tracer provider once per process. */
export function initTelemetry(opts: { serviceName: string; otlpEndpoint?: string; exporter?: SpanExporter }) {
  if (provider) return provider;
  const processors = [];
  if (opts.exporter) processors.push(new SimpleSpanProcessor({ exporter: opts.exporter }));
  if (opts.otlpEndpoint) {
    const url = `${opts.otlpEndpoint.replace(/\/+$/, '')}/v1/traces`;
    processors.push(new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url }) }));
  }
  if (processors.length === 0) return undefined;
  provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': opts.serviceName }),
    spanProcessors: processors,
  });
  trace.setGlobalTracerProvider(provider);
  return provider;
}

export async function shutdownTelemetry() {
  const p = provider;
  provider = undefined;
  trace.disable();
  await p?.shutdown();
}

export function tracer(): Tracer {
  return trace.getTracer('atelier');
}

/** Runs `fn` inside a span; a thrown error marks the span (error=true, error.message) and rethrows. */
export async function withSpan<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
  const span = tracer().startSpan(name, { attributes });
  try {
    const result = await fn(span);
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
