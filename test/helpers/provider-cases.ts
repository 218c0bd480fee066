/**
 * A fixture case as the core hands it to an adapter: the InferenceCall, the ProviderTarget (its base URL resolved as
 * the core resolves it) and, for a stream, the bytes the provider sends, framed back by the gateway's own framer.
 */
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import type { CallParts } from '../../src/core/inference-call.ts';
import type { InferenceCall, ProviderAdapter, ProviderTarget, RouteKind, StreamEvent, StreamFraming } from '../../src/providers/contract.ts';
import type { Clock } from '../../src/providers/shared/clock.ts';
import { createFramer } from '../../src/upstream/framing/index.ts';
import { FixtureFormatError, type FixtureCase, type FixtureEvent } from './provider-fixtures.ts';

/** The clock fixture answers are written with: `created` 1700000000, generated ids ending in `fixed`. */
export const FIXTURE_CLOCK: Clock = { now: () => 1_700_000_000_000, newId: () => 'fixed' };

/**
 * A call as the core builds it: the JSON body parsed and its bytes kept; no content type without a body. The body is
 * the client's JSON as a test or fixture writes it, so it is taken for the route's type as the route handler would
 * hand it on after validation.
 */
export function inferenceCall(route: RouteKind, body: unknown, extra: Partial<CallParts> = {}): InferenceCall {
  const rawBody = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const parts: CallParts = {
    method: 'POST',
    path: '',
    query: '',
    strictReferenceCompliance: true,
    rawBody,
    contentType: rawBody ? 'application/json' : undefined,
    params: {},
    ...extra,
  };
  return { ...parts, route, body } as InferenceCall;
}

/** A target as the core resolves it, without a custom host unless `extra` says so. */
export function providerTarget(provider: string, baseUrl: string, extra: Partial<Omit<ProviderTarget, 'provider' | 'baseUrl'>> = {}): ProviderTarget {
  return { provider, baseUrl, customHost: false, apiKey: undefined, cloud: {}, ...extra };
}

export function fixtureCall(fixture: FixtureCase): InferenceCall {
  const { method, path, query, params, strictReferenceCompliance } = fixture.call ?? {};
  return inferenceCall(fixture.route, fixture.request ?? undefined, {
    ...(method ? { method } : {}),
    ...(path ? { path } : {}),
    ...(query ? { query } : {}),
    ...(params ? { params } : {}),
    ...(strictReferenceCompliance === false ? { strictReferenceCompliance } : {}),
  });
}

/**
 * The target of a case. Without target.baseUrl the base URL is resolved as the core does without a custom host:
 * the adapter's baseUrlFor(cloud) (which may throw the 400 a case expects), else its default base URL.
 */
export function fixtureTarget(fixture: FixtureCase, adapter: ProviderAdapter): ProviderTarget {
  const cloud = fixture.target?.cloud ?? {};
  const baseUrl = fixture.target?.baseUrl ?? (adapter.baseUrlFor ? adapter.baseUrlFor(cloud) : adapter.defaultBaseUrl);
  if (baseUrl === undefined) throw new FixtureFormatError(`case "${fixture.name}": ${adapter.name} has no default base URL: give target.baseUrl`);
  return { provider: adapter.name, baseUrl, customHost: fixture.target?.customHost ?? false, apiKey: fixture.target?.apiKey, cloud };
}

/** The data text of a fixture event: a string as it is, any other JSON value as its JSON text. */
export function eventData(event: FixtureEvent): string {
  return typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);
type MessageHeaders = Parameters<EventStreamCodec['encode']>[0]['headers'];

/** One AWS event-stream message: an `exception:<type>` or `error:<code>` event is a message of that type. */
function awsMessage(event: FixtureEvent): Uint8Array {
  const string = (value: string) => ({ type: 'string' as const, value });
  const named = /^(exception|error):(.*)$/s.exec(event.event ?? '');
  const [kind, name] = named ? [named[1]!, named[2]!] : ['event', event.event ?? ''];
  if (kind === 'error') {
    // an error message carries its text in a header and no payload
    const headers = { ':message-type': string('error'), ':error-code': string(name), ':error-message': string(eventData(event)) };
    return codec.encode({ headers, body: new Uint8Array(0) });
  }
  const headers: MessageHeaders = { ':message-type': string(kind), ':content-type': string('application/json') };
  headers[kind === 'exception' ? ':exception-type' : ':event-type'] = string(name);
  return codec.encode({ headers, body: fromUtf8(eventData(event)) });
}

/** The bytes a provider sends for these events in its framing. */
export function streamBytes(events: readonly FixtureEvent[], framing: StreamFraming): Buffer {
  switch (framing) {
    case 'sse':
      return Buffer.from(
        events.map((event) => `${event.event ? `event: ${event.event}\n` : ''}${eventData(event).split('\n').map((line) => `data: ${line}\n`).join('')}\n`).join(''),
      );
    case 'ndjson':
      return Buffer.from(events.map((event) => `${eventData(event)}\n`).join(''));
    case 'aws-event-stream':
      return Buffer.concat(events.map(awsMessage));
  }
}

/** The events as the gateway's framer hands them to a decoder, from the bytes split into small network chunks. */
export function framedEvents(events: readonly FixtureEvent[], framing: StreamFraming, chunkSize = 61): StreamEvent[] {
  const bytes = streamBytes(events, framing);
  const framer = createFramer(framing);
  const out: StreamEvent[] = [];
  for (let offset = 0; offset < bytes.length; offset += chunkSize) out.push(...framer.push(bytes.subarray(offset, offset + chunkSize)));
  return [...out, ...framer.end()];
}
