/**
 * PostgreSQL's extended query protocol, the messages a named prepared statement needs (Parse once; then Bind,
 * Execute and Sync for each run), as bytes for PGlite's `execProtocol`. PGlite's own `query()` parses its statement
 * again on every call (an unnamed statement); the request log's batch INSERT, with its three rollup merges, spends
 * ~3 ms of the database thread in parse and plan each time (docs/performance.md).
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

/** Parse: prepares `sql` as the statement `name` with the given parameter type OIDs (0: inferred), then Sync. */
export function parseMessage(name: string, sql: string, parameterTypes: readonly number[]): Buffer {
  return Buffer.concat([message('P', [cString(name), cString(sql), int16(parameterTypes.length), ...parameterTypes.map(int32)]), SYNC]);
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

/** Execute (the unnamed portal, all rows), then Sync: the same bytes after every Bind. */
const EXECUTE_SYNC = Buffer.concat([message('E', [cString(''), int32(0)]), SYNC]);

/**
 * Bind (the unnamed portal, every parameter binary, results in text), Execute (all rows), then Sync, written into
 * one buffer from `allocate` (called once, with the message's length): a request-log batch's chunks (~1-2 MB) are
 * copied once, straight into the message.
 */
export function bindExecuteMessage(name: string, parameters: readonly BinaryParameter[], allocate: (bytes: number) => Uint8Array = Buffer.allocUnsafe): Uint8Array {
  const values = parameters.map(chunksOf);
  const nameBytes = Buffer.byteLength(name, 'utf8');
  const lengths = values.map((chunks) => (chunks === null ? -1 : chunks.reduce((sum, chunk) => sum + chunk.length, 0)));
  // after the type byte: the length itself, the portal's empty name, the statement's name, one parameter format
  // (its count and the code), the parameters' count, each parameter (its length, its bytes), the results' formats' count
  const bindLength = lengths.reduce((sum, length) => sum + 4 + Math.max(length, 0), 4 + 1 + nameBytes + 1 + 2 + 2 + 2 + 2);
  const target = allocate(1 + bindLength + EXECUTE_SYNC.length);
  const out = Buffer.from(target.buffer, target.byteOffset, target.byteLength);
  let at = out.write('B', 0, 'latin1');
  at = out.writeInt32BE(bindLength, at);
  at = out.writeUInt8(0, at); // the unnamed portal
  at += out.write(name, at, 'utf8');
  at = out.writeUInt8(0, at);
  at = out.writeInt16BE(1, at); // one format code for every parameter: binary
  at = out.writeInt16BE(1, at);
  at = out.writeInt16BE(values.length, at);
  values.forEach((chunks, index) => {
    at = out.writeInt32BE(lengths[index]!, at);
    for (const chunk of chunks ?? []) {
      out.set(chunk, at);
      at += chunk.length;
    }
  });
  at = out.writeInt16BE(0, at); // results: every column in text
  EXECUTE_SYNC.copy(out, at);
  return target;
}
