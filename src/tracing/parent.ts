/**
 * Where a request's span hangs in a trace, in this order:
 * 1. a valid W3C `traceparent` header: the span is its child (the caller's sampling flag is honoured);
 * 2. the gateway's headers when they are OpenTelemetry ids: `x-gateway-trace-id` (32 hex digits, or a UUID, whose
 *    32 digits are taken) names the trace, `x-gateway-parent-span-id` (16 hex digits) the parent;
 * 3. otherwise a new trace.
 * The span's own id is `x-gateway-span-id` when that is 16 hex digits. A generated trace id (a UUID) is taken as
 * the trace's id too, so a span found in the tracing back-end leads to its log row and back.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { defaultTextMapGetter, isSpanContextValid, isValidSpanId, isValidTraceId, ROOT_CONTEXT, trace, TraceFlags, type Context } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

export interface SpanPlace {
  /** the context the request's span starts in: holds the remote parent, if any */
  parent: Context;
  /** the trace id a new trace takes (the SDK generates one when undefined) */
  traceId: string | undefined;
  /** the request span's own id, when the client named it */
  spanId: string | undefined;
  source: 'traceparent' | 'gateway' | 'new';
}

const propagator = new W3CTraceContextPropagator();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** 32 hex digits (any case), or a UUID's 32 digits; undefined when not a valid, non-zero trace id */
export function otelTraceId(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  const digits = (UUID.test(value) ? value.replaceAll('-', '') : value).toLowerCase();
  return isValidTraceId(digits) ? digits : undefined;
}

/** 16 hex digits (any case); undefined when not a valid, non-zero span id */
export function otelSpanId(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  const digits = value.toLowerCase();
  return isValidSpanId(digits) ? digits : undefined;
}

/** the gateway's trace ids, as the log row holds them (x-gateway-trace-id or a generated one, span ids as sent) */
export interface GatewayTraceIds {
  traceId: string;
  spanId?: string | null | undefined;
  parentSpanId?: string | null | undefined;
}

export function spanPlace(headers: IncomingHttpHeaders, ids: GatewayTraceIds): SpanPlace {
  const spanId = otelSpanId(ids.spanId);
  const propagated = propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
  const remote = trace.getSpanContext(propagated);
  if (remote && isSpanContextValid(remote)) return { parent: propagated, traceId: undefined, spanId, source: 'traceparent' };
  const traceId = otelTraceId(ids.traceId);
  if (traceId === undefined) return { parent: ROOT_CONTEXT, traceId: undefined, spanId, source: 'new' };
  const parentSpanId = otelSpanId(ids.parentSpanId);
  if (parentSpanId === undefined) return { parent: ROOT_CONTEXT, traceId, spanId, source: 'gateway' };
  const parent = trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId: parentSpanId, traceFlags: TraceFlags.SAMPLED, isRemote: true });
  return { parent, traceId, spanId, source: 'gateway' };
}
