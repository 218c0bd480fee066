/**
 * Text let in up to a number of characters in all, then cut: what an answer folded from a stream of any length
 * keeps (the request log's stream folds, src/logging/stream-fold.ts, and the Messages assembler).
 */
export class TextLimit {
  private kept = 0;
  /** some text was left out */
  overflowed = false;

  constructor(private readonly limit = Infinity) {}

  /** whether there is a limit at all (a caller can then skip measuring what it lets in) */
  get bounded(): boolean {
    return this.limit !== Infinity;
  }

  /** `text` as far as the limit lets it in */
  admit(text: string): string {
    const room = this.limit - this.kept;
    if (text.length <= room) {
      this.kept += text.length;
      return text;
    }
    this.overflowed = true;
    this.kept = Math.max(this.kept, this.limit);
    return room > 0 ? text.slice(0, room) : '';
  }

  /**
   * A piece that is kept whole or not at all (a signature, a citation, a block): true and counted when all of its
   * `length` characters fit; false, and the limit marked as overflowed, when they do not.
   */
  fits(length: number): boolean {
    if (length <= this.limit - this.kept) {
      this.kept += length;
      return true;
    }
    this.leaveOut();
    return false;
  }

  /** something was left out that is not text (a part past a count the caller bounds) */
  leaveOut(): void {
    this.overflowed = true;
  }
}
