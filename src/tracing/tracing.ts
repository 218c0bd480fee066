/**
 * OpenTelemetry traces of the gateway's requests, exported over OTLP/HTTP (JSON) when an endpoint is configured
 * (config.tracing, from OTEL_EXPORTER_OTLP_ENDPOINT); no tracing at all otherwise. One tracer provider per gateway,
 * never registered globally (tests run several gateways in one process). Spans wait in a BatchSpanProcessor
 * (bounded queue; past it the SDK drops them) and are sent off the request path; `close()` exports what waits.
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { TracingConfig } from '../config/index.ts';
import type { RequestObserver } from '../logging/observer.ts';
import { createPresetIdGenerator } from './preset-ids.ts';
import { requestSpanObserver } from './request-spans.ts';

export interface Tracing {
  /** the request observer that turns each finished request into spans */
  observe: RequestObserver;
  /** exports every span ended so far */
  flush(): Promise<void>;
  /** exports what waits, then stops (Gateway.close, after the app has closed) */
  close(): Promise<void>;
}

export interface TracingOptions {
  exporter: SpanExporter;
  serviceName: string;
  /** `batch` (default) queues spans and exports them in the background; `simple` exports each at once (tests) */
  processor?: 'batch' | 'simple';
  onError: (error: unknown) => void;
}

export function createTracing(options: TracingOptions): Tracing {
  const ids = createPresetIdGenerator();
  const processor = options.processor === 'simple' ? new SimpleSpanProcessor(options.exporter) : new BatchSpanProcessor(options.exporter);
  const provider = new BasicTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName })),
    // a caller's traceparent decides whether its trace is sampled; everything else is
    sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    idGenerator: ids,
    spanProcessors: [processor],
  });
  const tracer = provider.getTracer('ai-gateway');
  return {
    observe: requestSpanObserver({ tracer, ids, onError: options.onError }),
    flush: () => provider.forceFlush(),
    close: () => provider.shutdown(),
  };
}

/** Tracing to an OTLP/HTTP collector (the exporter also honours OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION). */
export function createOtlpTracing(config: TracingConfig, onError: (error: unknown) => void): Tracing {
  return createTracing({ exporter: new OTLPTraceExporter({ url: config.tracesUrl }), serviceName: config.serviceName, onError });
}
