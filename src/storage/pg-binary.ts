/**
 * PostgreSQL's binary format (what its `*_recv` functions read) for the column types the request log writes, a
 * record of them and a one-dimensional array of records. The writer sends a batch of rows as one such array: the
 * database reads each value as it is (a uuid as its 16 bytes, a timestamp as its microseconds, a text as its UTF-8),
 * where a batch in JSON is parsed, each field turned back into text and then parsed again by its type's input
 * function (docs/performance.md: ~22% of the embedded database's time a row, ~45% of PostgreSQL's).
 *
 * A value its column's type cannot hold (a malformed uuid, an integer out of int4's range, a number that is not
 * finite) is written as NULL, and a NUL character (which neither text nor jsonb can hold) as U+FFFD, so a row is
 * never refused for it. The formats are those of the `*_send` functions in PostgreSQL's sources (uuid.c,
 * timestamp.c, varlena.c, int.c, bool.c, numeric.c, jsonb.c, rowtypes.c, arrayfuncs.c); the tests compare the bytes
 * with what the database's own functions send.
 */

import { RecordSlabs } from './record-slabs.ts';

export type BinaryType = 'uuid' | 'timestamptz' | 'text' | 'int4' | 'bool' | 'numeric' | 'jsonb';

/** Each type's OID (pg_type.oid: fixed for the built-in types). */
export const TYPE_OIDS: Readonly<Record<BinaryType, number>> = { uuid: 2950, timestamptz: 1184, text: 25, int4: 23, bool: 16, numeric: 1700, jsonb: 3802 };

/** 2000-01-01T00:00:00Z, PostgreSQL's epoch for timestamps, in ms since 1970's */
const PG_EPOCH_MS = Date.UTC(2000, 0, 1);
const TWO_32 = 2 ** 32;
const UUID_DASHES = [8, 13, 18, 23];
/** where each of a uuid's 16 bytes starts in its text */
const UUID_HEX_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
/** texts up to this many UTF-16 units are written by a loop when they are ASCII */
const SHORT_TEXT = 64;
const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * Bytes written one after another into a buffer that grows as needed and is reused from one record to the next: a
 * record is copied out once, at its final size.
 */
export class BinaryWriter {
  private buffer: Buffer;
  at = 0;

  /** @param slabs where records are copied out to (record-slabs.ts) */
  constructor(
    initialBytes = 16 * 1024,
    readonly slabs = new RecordSlabs(),
  ) {
    this.buffer = Buffer.allocUnsafe(initialBytes);
  }

  reset(): void {
    this.at = 0;
  }

  private ensure(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + bytes));
    this.buffer.copy(grown, 0, 0, this.at);
    this.buffer = grown;
  }

  // the integers are stored byte by byte: Buffer's writeInt32BE checks its arguments on every call, ~100 of them a row
  int16(value: number): void {
    this.ensure(2);
    const buffer = this.buffer;
    buffer[this.at] = value >>> 8;
    buffer[this.at + 1] = value;
    this.at += 2;
  }

  int32(value: number): void {
    this.ensure(4);
    this.put32(this.at, value);
    this.at += 4;
  }

  private put32(at: number, value: number): void {
    const buffer = this.buffer;
    buffer[at] = value >>> 24;
    buffer[at + 1] = value >>> 16;
    buffer[at + 2] = value >>> 8;
    buffer[at + 3] = value;
  }

  /** a signed 64-bit integer given as a double (exact up to 2^53) */
  int64(value: number): void {
    this.ensure(8);
    const high = Math.floor(value / TWO_32);
    this.put32(this.at, high);
    this.put32(this.at + 4, value - high * TWO_32);
    this.at += 8;
  }

  byte(value: number): void {
    this.ensure(1);
    this.buffer[this.at++] = value;
  }

  utf8(text: string): void {
    // a UTF-16 unit is at most 3 bytes of UTF-8 (a surrogate pair, 2 units, is 4)
    this.ensure(text.length * 3);
    if (text.length <= SHORT_TEXT && this.ascii(text)) return;
    this.at += this.buffer.write(text, this.at, 'utf8');
  }

  /** a short ASCII text byte by byte (a call into Buffer.write costs more than the loop); false if it is not ASCII */
  private ascii(text: string): boolean {
    const buffer = this.buffer;
    const at = this.at;
    for (let index = 0; index < text.length; index += 1) {
      const code = text.charCodeAt(index);
      if (code > 0x7f) return false;
      buffer[at + index] = code;
    }
    this.at += text.length;
    return true;
  }

  /**
   * a uuid's canonical text (8-4-4-4-12 hex digits) as its field: length 16, then its bytes, decoded straight into
   * the buffer (no array of its own); false, with nothing written, when the text is not one
   */
  uuid(text: string): boolean {
    if (text.length !== 36) return false;
    for (const dash of UUID_DASHES) if (text.charCodeAt(dash) !== 45) return false;
    this.ensure(20);
    const buffer = this.buffer;
    const at = this.at + 4;
    for (let byte = 0; byte < 16; byte += 1) {
      const from = UUID_HEX_AT[byte]!;
      const high = hexValue(text.charCodeAt(from));
      const low = hexValue(text.charCodeAt(from + 1));
      if (high < 0 || low < 0) return false;
      buffer[at + byte] = (high << 4) | low;
    }
    this.put32(this.at, 16);
    this.at += 20;
    return true;
  }

  bytes(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buffer.set(bytes, this.at);
    this.at += bytes.length;
  }

  /** writes a length placeholder, to be filled in by `endLength` with the bytes written after it */
  startLength(): number {
    this.int32(0);
    return this.at;
  }

  endLength(start: number): void {
    this.put32(start - 4, this.at - start);
  }

  /**
   * What was written since `from`, copied out into a slab shared by many records (a buffer of its own for each 5 KB
   * record cost ~3.4 µs to allocate, a slice ~0.1), reused once its records are released (`slabs.release`).
   */
  copy(from = 0): Buffer {
    return this.slabs.copy(this.buffer, from, this.at);
  }
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48; // 0-9
  const lower = code | 0x20;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1; // a-f, A-F
}

/** A numeric value as PostgreSQL's base-10000 digits; null when `value` is not a finite decimal. */
export function numericParts(value: string | number): { digits: number[]; weight: number; negative: boolean; scale: number } | null {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || Math.abs(value) >= 1e21) return null;
    text = value.toFixed(12).replace(/\.?0+$/, '');
  } else text = value;
  const match = DECIMAL.exec(text);
  if (!match) return null;
  const [, sign, whole, fraction = ''] = match as unknown as [string, string, string, string | undefined];
  // base-10000 digits: the whole part grouped from the right, the fraction from the left (its last group padded)
  const digits: number[] = [];
  const lead = whole.length % 4 || 4;
  for (let start = 0; start < whole.length; start += start === 0 ? lead : 4) digits.push(Number(whole.slice(start, start === 0 ? lead : start + 4)));
  let weight = digits.length - 1;
  for (let start = 0; start < fraction.length; start += 4) digits.push(Number(fraction.slice(start, start + 4).padEnd(4, '0')));
  while (digits.length > 0 && digits[0] === 0) {
    digits.shift();
    weight -= 1;
  }
  while (digits.length > 0 && digits[digits.length - 1] === 0) digits.pop();
  if (digits.length === 0) return { digits, weight: 0, negative: false, scale: fraction.length };
  return { digits, weight, negative: sign === '-', scale: fraction.length };
}

/** PostgreSQL's text cannot hold NUL (a whole batch would be refused for it): U+FFFD takes its place. */
function withoutNul(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text;
}

/** `\u0000` in JSON text, after an even number of backslashes (so itself an escape, not escaped text) */
const ESCAPED_NUL = /(?<!\\)((?:\\\\)*)\\u0000/g;

/**
 * Writes `value` as a field of `type` (its length, then its bytes); null or a value the type cannot hold as NULL
 * (length -1).
 */
export function writeField(writer: BinaryWriter, type: BinaryType, value: unknown): void {
  if (value === null || value === undefined) return writer.int32(-1);
  switch (type) {
    case 'text': {
      const start = writer.startLength();
      writer.utf8(withoutNul(typeof value === 'string' ? value : String(value)));
      return writer.endLength(start);
    }
    case 'uuid':
      if (typeof value !== 'string' || !writer.uuid(value)) writer.int32(-1);
      return;
    case 'timestamptz': {
      const ms = value instanceof Date ? value.getTime() : typeof value === 'string' || typeof value === 'number' ? new Date(value).getTime() : Number.NaN;
      if (!Number.isFinite(ms)) return writer.int32(-1);
      writer.int32(8);
      return writer.int64((ms - PG_EPOCH_MS) * 1000);
    }
    case 'int4': {
      const number = typeof value === 'number' ? Math.round(value) : typeof value === 'string' && value.trim() !== '' ? Math.round(Number(value)) : Number.NaN;
      if (!Number.isFinite(number) || number > 2_147_483_647 || number < -2_147_483_648) return writer.int32(-1);
      writer.int32(4);
      return writer.int32(number);
    }
    case 'bool':
      writer.int32(1);
      return writer.byte(value === true ? 1 : 0);
    case 'numeric': {
      const parts = typeof value === 'string' || typeof value === 'number' ? numericParts(value) : null;
      if (!parts) return writer.int32(-1);
      writer.int32(8 + 2 * parts.digits.length);
      writer.int16(parts.digits.length);
      writer.int16(parts.weight);
      writer.int16(parts.negative ? 0x4000 : 0);
      writer.int16(parts.scale);
      for (const digit of parts.digits) writer.int16(digit);
      return;
    }
    case 'jsonb': {
      const stringified = JSON.stringify(value);
      if (stringified === undefined) return writer.int32(-1);
      // jsonb refuses the escape \u0000 (a NUL JSON.stringify wrote), not an escaped backslash before "u0000"
      const json = stringified.includes('\\u0000') ? stringified.replace(ESCAPED_NUL, '$1\\ufffd') : stringified;
      const start = writer.startLength();
      writer.byte(1); // jsonb's binary format version
      writer.utf8(json);
      return writer.endLength(start);
    }
  }
}

export interface RecordField {
  type: BinaryType;
}

/**
 * A record of `fields` as an element of an array: its length, then the record (its field count, then each field's
 * type OID, length and bytes), each field's value read from `source` by its key (no array of values in between).
 * Copied out of `writer`, which is reset first.
 */
export function arrayElementRecord<Key extends string>(writer: BinaryWriter, fields: readonly (RecordField & { key: Key; fallback?: unknown })[], source: Readonly<Partial<Record<Key, unknown>>>): Buffer {
  writer.reset();
  const start = writer.startLength();
  writer.int32(fields.length);
  for (let index = 0; index < fields.length; index += 1) {
    const field = fields[index]!;
    writer.int32(TYPE_OIDS[field.type]);
    writeField(writer, field.type, source[field.key] ?? field.fallback);
  }
  writer.endLength(start);
  return writer.copy();
}

/**
 * A one-dimensional array (lower bound 1, no NULL element) of elements from arrayElementRecord, of type `elementOid`,
 * as chunks: its header, then the elements themselves (not copied here: the message that carries them copies them).
 */
export function recordArray(elementOid: number, elements: readonly Uint8Array[]): Uint8Array[] {
  const head = Buffer.allocUnsafe(20);
  head.writeInt32BE(1, 0); // dimensions
  head.writeInt32BE(0, 4); // no NULL element
  head.writeInt32BE(elementOid, 8);
  head.writeInt32BE(elements.length, 12);
  head.writeInt32BE(1, 16); // lower bound
  return [head, ...elements];
}
