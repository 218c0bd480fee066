/**
 * A long streamed answer folded a part at a time, for the request log. A request keeps its stream by reference for
 * the row (request-record.ts): a relayed stream's bytes up to STREAM_KEEP_BYTES, a translated stream's chunks up to
 * STREAM_KEEP_CHUNKS. When a stream of OpenAI chunks fills that, what is kept is folded into the answer so far
 * (reassemble-stream.ts) and let go, and keeping goes on: an answer of any length is logged whole, up to
 * FOLDED_TEXT_LIMIT characters of text, with its last chunks' finish reasons and usage. The work is the same as
 * folding the whole stream when the row is built (each event is read once), done in parts as the stream passes.
 * A stream of other events (Messages, Responses) or other bytes is not folded: its first part is kept and its body
 * is marked as cut, as before.
 */
import { StringDecoder } from 'node:string_decoder';
import { ChunkFolder } from './reassemble-stream.ts';
import { looksLikeEventStream, SsePieceReader } from './sse-events.ts';

/** A folded answer keeps at most this many characters of text (contents, reasoning, tool arguments); past it, cut. */
export const FOLDED_TEXT_LIMIT = 256 * 1024;

type Json = Record<string, unknown>;

/** A relayed stream's bytes, read as they are handed over (a line or a character cut between two parts stays whole). */
export class RelayedStreamFold {
  private readonly decoder = new StringDecoder('utf8');
  private readonly reader = new SsePieceReader({ merged: true, completionChunks: true });
  private readonly folder = new ChunkFolder(FOLDED_TEXT_LIMIT);
  private finished: Json | undefined;

  /** false when the stream's first event is not an OpenAI chunk, or it has none: nothing is folded then */
  push(buffers: readonly Buffer[]): boolean {
    for (const buffer of buffers) if (!this.reader.push(this.decoder.write(buffer))) return false;
    this.folder.addAll(this.reader.take());
    return this.folder.folding;
  }

  /** The whole answer, once the stream's last bytes are handed over (read once: later calls return it again). */
  answer(last: readonly Buffer[]): Json | undefined {
    if (this.finished) return this.finished;
    for (const buffer of last) this.reader.push(this.decoder.write(buffer));
    this.reader.push(this.decoder.end());
    this.reader.end();
    this.folder.addAll(this.reader.take());
    this.finished = this.folder.answer();
    return this.finished;
  }

  /** some of the answer's text was left out (FOLDED_TEXT_LIMIT) */
  get cut(): boolean {
    return this.folder.overflowed;
  }
}

/** What a relayed stream keeps for the log (a LoggedResponse of kind `bytes`). */
export interface KeptBytes {
  buffers: Buffer[];
  size: number;
  /** folding the stream as it passes; null: it cannot be (not OpenAI chunks) */
  fold?: RelayedStreamFold | null;
}

/**
 * The kept bytes are full: folds them and lets them go (true), or says they cannot be folded (false: they stay, and
 * what comes after them is not kept).
 */
export function foldKeptBytes(kept: KeptBytes): boolean {
  if (kept.fold === null) return false;
  if (kept.fold === undefined) {
    if (!looksLikeEventStream(kept.buffers)) {
      kept.fold = null;
      return false;
    }
    kept.fold = new RelayedStreamFold();
  }
  if (!kept.fold.push(kept.buffers)) {
    kept.fold = null;
    return false;
  }
  kept.buffers = [];
  kept.size = 0;
  return true;
}

/** What a translated stream keeps for the log (a LoggedResponse of kind `chunks`). */
export interface KeptChunks {
  chunks: unknown[];
  /** the chunks folded so far; null: they cannot be (none is an OpenAI chunk) */
  folder?: ChunkFolder | null;
}

/** The kept chunks are full: folds them and lets them go (true), or says they cannot be folded (false). */
export function foldKeptChunks(kept: KeptChunks): boolean {
  if (kept.folder === null) return false;
  const folder = kept.folder ?? new ChunkFolder(FOLDED_TEXT_LIMIT);
  folder.addAll(kept.chunks);
  if (!folder.folding) {
    kept.folder = null;
    return false;
  }
  kept.folder = folder;
  kept.chunks = [];
  return true;
}

/** A folded translated stream's whole answer: its last chunks join it (once: they are let go). */
export function foldedChunksAnswer(kept: KeptChunks, folder: ChunkFolder): Json | undefined {
  folder.addAll(kept.chunks);
  kept.chunks = [];
  return folder.answer();
}
