/**
 * Reads a provider's stream body through its framer and the adapter's decoder, handing each batch of decoded chunks
 * to `take`, awaited (so a slow client holds the upstream back), until the body ends or `closed()` says the client
 * went away. The framer's and the decoder's tails are flushed at the end. Written once for every stream renderer.
 */
export interface Unframer<E> {
  push(bytes: Buffer): Iterable<E>;
  end(): Iterable<E>;
}

export async function pumpDecoded<E>(
  body: AsyncIterable<unknown>,
  framer: Unframer<E>,
  decoder: { push(event: E): unknown[]; end(): unknown[] },
  closed: () => boolean,
  take: (chunks: unknown[]) => Promise<void>,
): Promise<void> {
  for await (const bytes of body) {
    if (closed()) break;
    for (const event of framer.push(bytes as Buffer)) await take(decoder.push(event));
  }
  for (const event of framer.end()) await take(decoder.push(event));
  await take(decoder.end());
}
