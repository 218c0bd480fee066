/**
 * Slabs the request log's records are copied into, and reused once every record in them has been released.
 *
 * A queued record waits up to a second for its batch, so a slab lives through a few young-generation collections and
 * its ArrayBuffer ends up in the old generation. V8 counts the bytes of ArrayBuffers allocated since its last
 * mark-compact against the old generation's limit: a new 256 KB slab every ~46 rows (~17 MB a second under the
 * bench's load) started a mark-compact of the whole heap every ~0.7 s, and V8's collector threads spent ~20 µs a
 * request on them (docs/performance.md, seventh session). Reused slabs allocate nothing in the steady state.
 *
 * The contract: a record is released once, when nothing will read it again (written, or dropped). Releasing one
 * early would let a later record overwrite its bytes; the request-log writer releases a batch only after its
 * statement has settled, and the batch's bytes are copied out of the records before the statement is sent.
 */

interface Slab {
  buffer: Buffer;
  /** records handed out of it and not released yet */
  live: number;
  /** still being filled: it is not reused before it is retired, even with no live record */
  current: boolean;
  /** in the free list */
  free: boolean;
}

export class RecordSlabs {
  /**
   * each slab by its ArrayBuffer, weakly: a slab whose records are dropped without being released (a caller that
   * breaks the contract) is still collected with them, never held here
   */
  private readonly slabs = new WeakMap<ArrayBufferLike, Slab>();
  private readonly free: Slab[] = [];
  /** slabs allocated and not let go (free ones included) */
  private kept = 0;
  /** records released already: a second release of one must not count against its slab's other records */
  private readonly released = new WeakSet<Uint8Array>();
  private current: Slab | undefined;
  private at = 0;

  /**
   * @param slabBytes the size of a slab; a record over a quarter of it gets a buffer of its own (never reused)
   * @param maxFree slabs kept for reuse at most; past it a slab is left to the garbage collector (after an outage
   *   that held many rows, the memory goes back)
   */
  constructor(
    readonly slabBytes = 256 * 1024,
    private readonly maxFree = 16,
  ) {}

  /** `source[from, to)` copied into a slab (or a buffer of its own when large). */
  copy(source: Buffer, from: number, to: number): Buffer {
    const length = to - from;
    if (length > this.slabBytes / 4) {
      const own = Buffer.allocUnsafeSlow(length);
      source.copy(own, 0, from, to);
      return own;
    }
    if (this.current === undefined || this.at + length > this.slabBytes) this.next();
    const slab = this.current!;
    const out = slab.buffer.subarray(this.at, this.at + length);
    this.at += (length + 7) & ~7; // the next record 8-byte aligned
    slab.live += 1;
    source.copy(out, 0, from, to);
    return out;
  }

  /** The records will not be read again: their slabs' space can be reused once all of a slab's are released. */
  release(records: readonly Uint8Array[]): void {
    for (const record of records) {
      const slab = this.slabs.get(record.buffer);
      if (slab === undefined || this.released.has(record)) continue; // a record with a buffer of its own, or released already
      this.released.add(record);
      slab.live -= 1;
      if (slab.live === 0 && !slab.current) this.recycle(slab);
    }
  }

  /** slabs in use (holding live records, or being filled) and kept for reuse, for the tests */
  get counts(): { inUse: number; free: number } {
    return { inUse: this.kept - this.free.length, free: this.free.length };
  }

  private next(): void {
    const retired = this.current;
    if (retired) {
      retired.current = false;
      if (retired.live === 0) this.recycle(retired);
    }
    let slab = this.free.pop();
    if (slab === undefined) {
      slab = { buffer: Buffer.allocUnsafeSlow(this.slabBytes), live: 0, current: false, free: false };
      this.slabs.set(slab.buffer.buffer, slab);
      this.kept += 1;
    }
    slab.free = false;
    slab.current = true;
    this.current = slab;
    this.at = 0;
  }

  private recycle(slab: Slab): void {
    if (slab.free) return;
    if (this.free.length < this.maxFree) {
      slab.free = true;
      this.free.push(slab);
    } else {
      this.slabs.delete(slab.buffer.buffer);
      this.kept -= 1;
    }
  }
}
