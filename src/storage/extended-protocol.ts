/**
 * PostgreSQL's extended query protocol, the messages a named prepared statement needs (Parse once; then Bind,
 * Execute and Sync for each run), as bytes: for PGlite's `execProtocol` (its own `query()` parses its statement again
 * on every call, an unnamed statement; the request log's batch INSERT, with its three rollup merges, spends ~3 ms of
 * the database thread in parse and plan each time: docs/performance.md), and for a node-postgres connection's socket
 * (src/storage/postgres-statement.ts).
 *
 * Parameters are sent in the binary format: a Uint8Array as its bytes (for `json`, its UTF-8 text; for `bytea`, the
 * bytes), a string as its UTF-8 text, null as SQL NULL. See https://www.postgresql.org/docs/current/protocol-message-formats.html
 */

/** A statement prepared once by name and run many times: its parameters' type OIDs (0: inferred). */
export interface PreparedStatement {
  name: string;
  text: string;
  parameterTypes: number[];
}

function message(type: string, body: readonly Uint8Array[]): Buffer {
  const length = body.reduce((sum, part) => sum + part.length, 4);
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(length, 1);
  return Buffer.concat([head, ...body]);
}

const cString = (text: string): Buffer => Buffer.from(`${text}\0`, 'utf8');

function int16(value: number): Buffer {
  const bytes = Buffer.alloc(2);
  bytes.writeInt16BE(value);
  return bytes;
}

function int32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeInt32BE(value);
  return bytes;
}

const SYNC = message('S', []);

/** Parse: prepares `sql` as the statement `name` with the given parameter type OIDs (0: inferred); no Sync. */
export function parseOnlyMessage(name: string, sql: string, parameterTypes: readonly number[]): Buffer {
  return message('P', [cString(name), cString(sql), int16(parameterTypes.length), ...parameterTypes.map(int32)]);
}

/** Parse, then Sync. */
export function parseMessage(name: string, sql: string, parameterTypes: readonly number[]): Buffer {
  return Buffer.concat([parseOnlyMessage(name, sql, parameterTypes), SYNC]);
}

/**
 * A parameter's value: bytes, a string (its UTF-8 text), SQL NULL, or bytes given as chunks to be concatenated (a
 * request-log batch: the array's header, then each row's record, never copied into one buffer of its own first).
 */
export type BinaryParameter = Uint8Array | string | null | readonly Uint8Array[];

/** The parameter as one buffer (for drivers that take nothing else). */
export function joinedParameter(parameter: BinaryParameter): Uint8Array | string | null {
  return Array.isArray(parameter) ? Buffer.concat(parameter) : (parameter as Uint8Array | string | null);
}

/** A parameter's bytes as chunks, or null for SQL NULL. */
function chunksOf(parameter: BinaryParameter): readonly Uint8Array[] | null {
  if (parameter === null) return null;
  if (typeof parameter === 'string') return [Buffer.from(parameter, 'utf8')];
  return Array.isArray(parameter) ? parameter : [parameter as Uint8Array];
}

/** The results' formats' count (0: every column in text), Execute (the unnamed portal, all rows), then Sync: the same bytes after every Bind's parameters. */
const RESULTS_EXECUTE_SYNC = Buffer.concat([int16(0), message('E', [cString(''), int32(0)]), SYNC]);

/**
 * Bind (the unnamed portal, every parameter binary, results in text), Execute (all rows), then Sync, as pieces in
 * order: the message's framing in small buffers of its own, each parameter's bytes as they were given. A socket
 * writes them as they are, so a request-log batch's chunks (~1-2 MB) are never copied into a message.
 */
export function bindExecutePieces(name: string, parameters: readonly BinaryParameter[]): Uint8Array[] {
  const values = parameters.map(chunksOf);
  const nameBytes = Buffer.byteLength(name, 'utf8');
  const lengths = values.map((chunks) => (chunks === null ? -1 : chunks.reduce((sum, chunk) => sum + chunk.length, 0)));
  // after the type byte: the length itself, the portal's empty name, the statement's name, one parameter format
  // (its count and the code), the parameters' count, each parameter (its length, its bytes), the results' formats' count
  const bindLength = lengths.reduce((sum, length) => sum + 4 + Math.max(length, 0), 4 + 1 + nameBytes + 1 + 2 + 2 + 2 + 2);
  const head = Buffer.allocUnsafe(1 + 4 + 1 + nameBytes + 1 + 2 + 2 + 2);
  let at = head.write('B', 0, 'latin1');
  at = head.writeInt32BE(bindLength, at);
  at = head.writeUInt8(0, at); // the unnamed portal
  at += head.write(name, at, 'utf8');
  at = head.writeUInt8(0, at);
  at = head.writeInt16BE(1, at); // one format code for every parameter: binary
  at = head.writeInt16BE(1, at);
  head.writeInt16BE(values.length, at);
  const pieces: Uint8Array[] = [head];
  values.forEach((chunks, index) => {
    pieces.push(int32(lengths[index]!));
    if (chunks) pieces.push(...chunks);
  });
  pieces.push(RESULTS_EXECUTE_SYNC);
  return pieces;
}

/**
 * The same message written into one buffer from `allocate` (called once, with the message's length): a request-log
 * batch's chunks are copied once, straight into the message (PGlite takes one buffer).
 */
export function bindExecuteMessage(name: string, parameters: readonly BinaryParameter[], allocate: (bytes: number) => Uint8Array = Buffer.allocUnsafe): Uint8Array {
  const pieces = bindExecutePieces(name, parameters);
  const target = allocate(pieces.reduce((sum, piece) => sum + piece.length, 0));
  let at = 0;
  for (const piece of pieces) {
    target.set(piece, at);
    at += piece.length;
  }
  return target;
}
