/**
 * Pinecone error bodies: `{ "error": { "code": "INVALID_ARGUMENT", "message": "..." }, "status": 400 }`
 * (https://docs.pinecone.io/reference/api/errors). The message and the code are kept in the OpenAI error shape.
 */
import type { ErrorParser } from '../contract.ts';
import { isRecord } from '../shared/json.ts';

export const parsePineconeError: ErrorParser = (_status, body) => {
  const error = isRecord(body) ? body.error : undefined;
  if (!isRecord(error) || typeof error.message !== 'string') return undefined;
  return { message: error.message, ...(typeof error.code === 'string' ? { code: error.code } : {}) };
};
