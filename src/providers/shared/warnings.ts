/**
 * Warnings as data: a request setting the provider cannot honour is not sent, and the client learns it from the
 * x-gateway-warnings header. Adapters word it through `droppedParameter`, so the header reads the same whichever
 * provider answered: `<provider>: <parameter> <reason>; dropped`.
 */

/**
 * `parameter` is the client's field or a description of the part dropped (`document fields other than text`);
 * `reason` says more than "not supported" where that helps (`not supported (one choice only)`). Client-chosen
 * field names are cut to printable ASCII, as headers need.
 */
export function droppedParameter(provider: string, parameter: string, reason = 'not supported'): string {
  return `${provider}: ${parameter.replace(/[^\x20-\x7e]/g, '?').slice(0, 100)} ${reason}; dropped`;
}

/** One warning for each field of the request that is set and not in `handled` (the fields a mapping read). */
export function unhandledFields(provider: string, request: Readonly<Record<string, unknown>>, handled: ReadonlySet<string>): string[] {
  return Object.entries(request)
    .filter(([key, value]) => !handled.has(key) && value !== undefined && value !== null)
    .map(([key]) => droppedParameter(provider, key));
}
