/**
 * Text let in up to a number of characters in all, then cut: what an answer folded from a stream of any length
 * keeps (the request log's stream folds, src/logging/stream-fold.ts, and the Messages assembler).
 */
export class TextLimit {
  private kept = 0;
  /** some text was left out */
  overflowed = false;

  constructor(private readonly limit = Infinity) {}

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
}
