/**
 * A remote store's answer, or a rejection after `ms`: on the request path a store that hangs (Redis going away,
 * its client still retrying) must cost a request at most this long, never the client library's own retry time.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, timedOut: (ms: number) => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(timedOut(ms)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
