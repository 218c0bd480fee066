/**
 * Span ids the SDK would otherwise invent. A request's span is created after the request has ended, from its log
 * row; when the client named the trace (`x-gateway-trace-id`) and the span (`x-gateway-span-id`) as OpenTelemetry
 * ids, the span keeps them, so the gateway's log and the tracing back-end agree. `Tracer.startSpan` is synchronous
 * and asks the generator for its ids inside the call: `next()` sets the ids for the very next span only.
 */
import { RandomIdGenerator, type IdGenerator } from '@opentelemetry/sdk-trace-base';

export interface PresetIdGenerator extends IdGenerator {
  /** the ids the next span takes (each one only when the SDK asks for it); `clear()` forgets what it did not take */
  next(ids: { traceId?: string | undefined; spanId?: string | undefined }): void;
  clear(): void;
}

export function createPresetIdGenerator(): PresetIdGenerator {
  const random = new RandomIdGenerator();
  let traceId: string | undefined;
  let spanId: string | undefined;
  return {
    generateTraceId() {
      const preset = traceId;
      traceId = undefined;
      return preset ?? random.generateTraceId();
    },
    generateSpanId() {
      const preset = spanId;
      spanId = undefined;
      return preset ?? random.generateSpanId();
    },
    next(ids) {
      traceId = ids.traceId;
      spanId = ids.spanId;
    },
    clear() {
      traceId = undefined;
      spanId = undefined;
    },
  };
}
