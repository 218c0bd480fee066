/**
 * Serving a finished export from a signed URL: the chunks read one at a time in order, JSON Lines as stored, or CSV
 * converted a chunk at a time (csv-stringify), so a download holds one chunk in memory whatever the export's size.
 */
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import { forbidden, notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { findLogExportById, nextExportChunk } from '../../storage/repositories/log-exports.ts';
import { isExpired, type DownloadFormat, type DownloadSigner } from './download-signature.ts';
import { csvRecord, exportFieldsOf } from './export-fields.ts';
import type { ExportField } from './inputs.ts';

export interface SignedDownload {
  exportId: string;
  format: DownloadFormat;
  expires: number;
  signature: string;
}

async function* chunksOf(db: Db, exportId: string): AsyncGenerator<string> {
  for (let seq = -1; ;) {
    const chunk = await nextExportChunk(db, exportId, seq);
    if (!chunk) return;
    seq = chunk.seq;
    yield chunk.data;
  }
}

/**
 * The CSV text, one piece a chunk: the header first (alone for an export without rows), then each chunk's records.
 * A piece a chunk, not a stream step a record: 100k records through a record-by-record stream took ~8 s on the test
 * machine (docs/performance.md, eleventh session).
 */
async function* csvText(chunks: AsyncIterable<string>, fields: readonly ExportField[]): AsyncGenerator<string> {
  const columns = [...fields];
  let header = true;
  for await (const data of chunks) {
    const records: string[][] = [];
    for (const line of data.split('\n')) if (line.length > 0) records.push(csvRecord(JSON.parse(line) as Record<string, unknown>, fields));
    yield stringify(records, { header, columns });
    header = false;
  }
  if (header) yield stringify([], { header, columns });
}

/** The signature, expiry and export checked (403 for a bad or expired URL, 404 for an export gone); its body. */
export async function openDownload(db: Db, signer: DownloadSigner, request: SignedDownload, nowMs: number): Promise<{ body: Readable; contentType: string; fileName: string }> {
  if (!signer.verify(request.exportId, request.format, request.expires, request.signature)) {
    throw forbidden('The download URL\'s signature is not valid.', 'invalid_signature');
  }
  if (isExpired(request.expires, nowMs)) throw forbidden('The download URL has expired: ask for another.', 'expired_signature');
  const row = await findLogExportById(db, request.exportId);
  if (!row || row.status !== 'success') throw notFound(`Log export "${request.exportId}" not found, or not finished.`, 'log_export_not_found');
  const chunks = chunksOf(db, row.id);
  const fileName = `log-export-${row.id}.${request.format}`;
  if (request.format === 'csv') return { body: Readable.from(csvText(chunks, exportFieldsOf(row.requestedData as ExportField[])), { objectMode: false }), contentType: 'text/csv; charset=utf-8', fileName };
  return { body: Readable.from(chunks, { objectMode: false }), contentType: 'application/x-ndjson; charset=utf-8', fileName };
}
