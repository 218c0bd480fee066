/**
 * Cohere error bodies: `{ "id": "...", "message": "invalid request: ..." }` (https://docs.cohere.com/reference/errors).
 * The message is kept; the core fills the OpenAI error shape around it.
 */
import type { ErrorParser } from '../contract.ts';
import { isRecord } from '../shared/json.ts';

export const parseCohereError: ErrorParser = (_status, body) => {
  if (isRecord(body) && typeof body.message === 'string' && body.message) return { message: body.message };
  return undefined;
};
