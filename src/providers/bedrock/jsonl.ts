/**
 * A JSONL stream mapped line by line (batch inputs on their way to S3, batch outputs on their way back): only the
 * current line is held, and one longer than MAX_LINE_BYTES fails the stream rather than grow without bound.
 */
import { Transform } from 'node:stream';
import { invalidParam } from '../../core/errors.ts';

export const MAX_LINE_BYTES = 16 * 1024 * 1024;
const NEWLINE = 0x0a;

/** `map` gets each non-blank line's text and its 1-based number, and returns the line to write (without `\n`). */
export function jsonlTransform(map: (text: string, line: number) => string): Transform {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let line = 0;
  const out = (piece: Buffer): string => {
    line += 1;
    const text = piece.toString('utf8');
    return text.trim().length === 0 ? '' : `${map(text, line)}\n`;
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      try {
        let written = '';
        let start = 0;
        for (let at = chunk.indexOf(NEWLINE); at >= 0; at = chunk.indexOf(NEWLINE, start)) {
          const piece = chunk.subarray(start, at);
          written += out(pending.length > 0 ? Buffer.concat([...pending, piece]) : piece);
          pending = [];
          pendingBytes = 0;
          start = at + 1;
        }
        if (start < chunk.length) {
          pendingBytes += chunk.length - start;
          if (pendingBytes > MAX_LINE_BYTES) throw invalidParam(`input line ${line + 1}`, `input line ${line + 1} is longer than ${MAX_LINE_BYTES} bytes.`);
          pending.push(chunk.subarray(start));
        }
        callback(null, written.length > 0 ? written : undefined);
      } catch (error) {
        callback(error as Error);
      }
    },
    flush(callback) {
      try {
        const last = pending.length > 0 ? out(Buffer.concat(pending)) : '';
        pending = [];
        callback(null, last.length > 0 ? last : undefined);
      } catch (error) {
        callback(error as Error);
      }
    },
  });
}
