/**
 * The memory a prepared statement's message (Bind, Execute, Sync) is written into on the gateway's thread and read
 * from by the database's thread, shared between them and reused from one statement to the next.
 *
 * A request-log batch's message is ~1-2 MB. Made anew for each batch (the batch concatenated, moved to the
 * database's thread, written again into a Bind message there), it cost two fresh ~1 MB mappings a batch, faulted in
 * page by page and freed only when a collector reached their small wrappers: several at a time in resident memory
 * under load (docs/performance.md, eleventh session). Shared memory is neither copied nor moved by postMessage.
 *
 * The contract: one message in flight at a time (the client runs its calls one after another, as PGlite's single
 * connection does); a view handed out is overwritten by the next `take`.
 */
export class SharedMessageBuffer {
  private shared: SharedArrayBuffer | undefined;

  /** @param keepBytes the largest memory kept for reuse: a larger message gets memory of its own, let go afterwards */
  constructor(readonly keepBytes = 4 * 1024 * 1024) {}

  /** A view of `bytes` bytes of shared memory. */
  take(bytes: number): Uint8Array {
    if (bytes > this.keepBytes) return new Uint8Array(new SharedArrayBuffer(bytes));
    if (this.shared === undefined || this.shared.byteLength < bytes) {
      // room for batches a quarter larger, in 64 KiB steps: a load's batches vary in size by a few rows' worth
      const grown = Math.min(this.keepBytes, Math.ceil((bytes * 1.25) / 65_536) * 65_536);
      this.shared = new SharedArrayBuffer(Math.max(grown, bytes));
    }
    return new Uint8Array(this.shared, 0, bytes);
  }

  /** the shared memory kept, for the tests */
  get keptBytes(): number {
    return this.shared?.byteLength ?? 0;
  }
}
