/**
 * GET /downloads/log-exports/{exportId}?format=jsonl|csv&expires=<unix seconds>&signature=<...>: a finished log
 * export, streamed chunk by chunk. Outside /v1 and without an API key: the signed URL that
 * GET /v1/logs/exports/{exportId}/download hands out is the credential (15 minutes). A bad or expired signature is
 * a 403; a malformed parameter a 400 naming it.
 */
import type { FastifyInstance } from 'fastify';
import { invalidParam } from '../../core/errors.ts';
import { isUuid } from '../../core/ids.ts';
import { DOWNLOAD_FORMATS, type DownloadFormat } from '../../domain/logs/download-signature.ts';
import { downloadSignerFor } from '../../domain/logs/download-signer.ts';
import { openDownload } from '../../domain/logs/export-download.ts';
import type { SecretCipher } from '../../secrets/cipher.ts';
import type { Database } from '../../storage/database.ts';
import { refuseNulCharacters } from '../admin/admin-route.ts';
import { optionalEnum, optionalString } from '../admin/params.ts';

export interface LogDownloadDeps {
  database: Database;
  secrets: SecretCipher;
  now?: () => Date;
}

export function registerLogDownloadRoute(app: FastifyInstance, deps: LogDownloadDeps): void {
  const signer = downloadSignerFor(deps.secrets);
  const now = deps.now ?? (() => new Date());

  app.get('/downloads/log-exports/:exportId', async (request, reply) => {
    refuseNulCharacters(request);
    const exportId = (request.params as { exportId?: string }).exportId ?? '';
    if (!isUuid(exportId)) throw invalidParam('exportId', 'exportId must be a UUID.');
    const format: DownloadFormat = optionalEnum(request.query, 'format', DOWNLOAD_FORMATS) ?? 'jsonl';
    const expiresText = optionalString(request.query, 'expires', 20);
    if (expiresText === undefined || !/^\d{1,15}$/.test(expiresText)) throw invalidParam('expires', 'expires must be a Unix time in seconds.');
    const signature = optionalString(request.query, 'signature', 1024);
    if (signature === undefined) throw invalidParam('signature', 'signature is required.', 'missing_field');
    const download = await openDownload(deps.database.db, signer, { exportId: exportId.toLowerCase(), format, expires: Number(expiresText), signature }, now().getTime());
    reply.header('content-type', download.contentType);
    reply.header('content-disposition', `attachment; filename="${download.fileName}"`);
    reply.header('cache-control', 'no-store');
    return reply.send(download.body);
  });
}
