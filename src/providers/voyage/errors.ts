/**
 * Voyage AI error bodies (https://docs.voyageai.com/docs/error-codes) are FastAPI-style: `{ "detail": "..." }`,
 * or for a malformed body `{ "detail": [{ "loc": [...], "msg": "...", "type": "..." }] }`. The message is kept.
 */
import type { ErrorParser } from '../contract.ts';
import { isRecord } from '../shared/json.ts';

export const parseVoyageError: ErrorParser = (_status, body) => {
  if (!isRecord(body)) return undefined;
  if (typeof body.detail === 'string' && body.detail) return { message: body.detail };
  if (Array.isArray(body.detail)) {
    const messages = body.detail.flatMap((item) => {
      if (!isRecord(item) || typeof item.msg !== 'string') return [];
      const where = Array.isArray(item.loc) ? item.loc.join('.') : '';
      return [where ? `${where}: ${item.msg}` : item.msg];
    });
    if (messages.length > 0) return { message: messages.join('; ') };
  }
  return undefined;
};
