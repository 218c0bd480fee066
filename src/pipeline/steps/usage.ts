/**
 * Usage of an answer, as the provider reported it: a JSON answer's (canonical) `usage`, a cached answer's stored
 * one. A stream's usage arrives with its chunks and is noted by the stream writer. A count that is not known stays
 * undefined, never 0. Its cost is usage x price (steps/cost.ts looks the price up; the row multiplies).
 */
import { usageInText, usageOf, type TokenUsage } from '../../logging/usage.ts';
import type { ChosenAnswer } from '../outcome.ts';

export function answerUsage(answer: ChosenAnswer): TokenUsage | undefined {
  if (answer.kind === 'cached') return usageInText(answer.cached.body);
  if (answer.kind !== 'json' || typeof answer.canonical !== 'object' || answer.canonical === null) return undefined;
  return usageOf((answer.canonical as { usage?: unknown }).usage);
}
