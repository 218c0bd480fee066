/**
 * A streaming reader of the multipart/form-data upload (RFC 7578) that POST /v1/files takes: text fields are
 * collected (small), the file part is written to a stream as its bytes arrive, with the writer's backpressure
 * honoured. Only a tail as long as the boundary is ever held back, so the file is never held whole.
 */
import { Writable } from 'node:stream';
import { invalidParam } from '../../core/errors.ts';

const MAX_HEADER_BYTES = 16 * 1024;
const MAX_FIELD_BYTES = 64 * 1024;
const HEADER_END = Buffer.from('\r\n\r\n');

export interface PartHandlers {
  /** the file part begins: its bytes go to the stream this returns (ended when the part ends) */
  file(name: string, filename: string): NodeJS.WritableStream;
  field(name: string, value: string): void;
}

export function boundaryOf(contentType: string): string {
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  if (!boundary) throw invalidParam('file', 'The multipart/form-data upload has no boundary.', 'invalid_content_type');
  return boundary;
}

function malformed(detail: string) {
  return invalidParam('file', `The multipart/form-data upload is malformed: ${detail}.`, 'invalid_multipart');
}

function dispositionOf(headers: string): { name: string; filename: string | undefined } {
  const line = headers.split('\r\n').find((entry) => /^content-disposition\s*:/i.test(entry));
  if (!line) throw malformed('a part has no Content-Disposition');
  const param = (key: string) => new RegExp(`;\\s*${key}="([^"]*)"`, 'i').exec(line)?.[1] ?? new RegExp(`;\\s*${key}=([^\\s;"]+)`, 'i').exec(line)?.[1];
  const name = param('name');
  if (name === undefined) throw malformed('a part has no name');
  return { name, filename: param('filename') };
}

type State = 'preamble' | 'headers' | 'body' | 'done';

/** A Writable the upload is piped into; it fails with a 400 when the form is malformed or ends early. */
export function createMultipartReader(boundary: string, handlers: PartHandlers): Writable {
  const first = Buffer.from(`--${boundary}`);
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  let state: State = 'preamble';
  let pending: Buffer = Buffer.alloc(0);
  let part: { name: string; file: NodeJS.WritableStream | undefined; field: Buffer[]; fieldBytes: number } | undefined;

  /** writes to the file part's stream, resolving once it can take more */
  const emit = (bytes: Buffer): Promise<void> | undefined => {
    if (!part || bytes.length === 0) return undefined;
    if (part.file) return part.file.write(bytes) ? undefined : new Promise((resolve) => part!.file!.once('drain', resolve));
    part.fieldBytes += bytes.length;
    if (part.fieldBytes > MAX_FIELD_BYTES) throw invalidParam(part.name, `The form field ${part.name} is too long.`);
    part.field.push(bytes);
    return undefined;
  };

  const endPart = () => {
    if (!part) return;
    if (part.file) part.file.end();
    else handlers.field(part.name, Buffer.concat(part.field).toString('utf8'));
    part = undefined;
  };

  /** consumes what `pending` allows; returns a promise when the file's writer asked to wait */
  const step = async (): Promise<void> => {
    for (;;) {
      if (state === 'preamble') {
        const at = pending.indexOf(first);
        if (at < 0) return;
        pending = pending.subarray(at + first.length);
        state = 'headers';
      } else if (state === 'headers') {
        if (pending.length < 2) return;
        if (pending.subarray(0, 2).toString() === '--') {
          state = 'done';
          return;
        }
        // the boundary line's own CRLF comes first; the headers end at the blank line
        const end = pending.indexOf(HEADER_END);
        if (end < 0) {
          if (pending.length > MAX_HEADER_BYTES) throw malformed('a part\'s headers are too long');
          return;
        }
        const { name, filename } = dispositionOf(pending.subarray(0, end).toString('utf8'));
        pending = pending.subarray(end + HEADER_END.length);
        part = { name, file: filename === undefined ? undefined : handlers.file(name, filename), field: [], fieldBytes: 0 };
        state = 'body';
      } else if (state === 'body') {
        const at = pending.indexOf(delimiter);
        if (at < 0) {
          // all but a tail that could be the start of the delimiter
          const keep = Math.min(pending.length, delimiter.length - 1);
          const out = pending.subarray(0, pending.length - keep);
          pending = pending.subarray(pending.length - keep);
          await emit(out);
          return;
        }
        const out = pending.subarray(0, at);
        pending = pending.subarray(at + delimiter.length);
        await emit(out);
        endPart();
        state = 'headers';
      } else return;
    }
  };

  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (state === 'done') return callback();
      pending = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
      step().then(() => callback(), callback);
    },
    final(callback) {
      if (state !== 'done') return callback(malformed('it ends before its closing boundary'));
      callback();
    },
  });
}
