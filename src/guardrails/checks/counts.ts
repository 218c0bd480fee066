/**
 * Length checks: default.wordCount, default.sentenceCount, default.characterCount. Each passes when the count is
 * within [min, max] (both inclusive; defaults from api-surface §3.14), and `not` inverts.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { Not, ParameterSchema, decide, definePreparedCheck, invalidParameter, type RegisteredCheck } from '../define.ts';
import type { CheckContext } from '../types.ts';

const Count = Type.Optional(Type.Integer({ minimum: 0 }));

/** Words are runs of non-whitespace. */
export function countWords(text: string): number {
  return text.split(/\s+/u).filter((word) => word !== '').length;
}

/**
 * A sentence ends at `.`, `!`, `?` (or `…`) followed by whitespace or the end of the text, so "1.5" and "e.g."
 * mid-word do not split; a final sentence without a full stop still counts. A piece with no letter or digit
 * (a stray "...") is not a sentence.
 */
export function countSentences(text: string): number {
  return text.split(/[.!?…]+(?=\s|$)/u).filter((piece) => /[\p{L}\p{N}]/u.test(piece)).length;
}

/** Characters are Unicode code points, so an emoji counts once, not as two UTF-16 units. */
export function countCharacters(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

interface Range {
  min: number;
  max: number;
  not: boolean | undefined;
}

function countCheck(
  names: { min: string; max: string; unit: string },
  defaults: { min: number; max: number },
  count: (text: string) => number,
): RegisteredCheck {
  const properties: Record<string, TSchema> = { [names.min]: Count, [names.max]: Count, not: Not };
  return definePreparedCheck(
    ParameterSchema(properties),
    (context: CheckContext, range: Range) => {
      const value = count(context.text);
      const within = value >= range.min && value <= range.max;
      return {
        ...decide(within, range.not, {
          yes: `The text has ${value} ${names.unit}, within ${range.min}..${range.max}.`,
          no: `The text has ${value} ${names.unit}, outside ${range.min}..${range.max}.`,
        }),
        data: { count: value, min: range.min, max: range.max },
      };
    },
    (parameters, path) => {
      const values: Record<string, unknown> = parameters;
      const read = (key: string, fallback: number) => {
        const value = values[key];
        return typeof value === 'number' ? value : fallback;
      };
      const min = read(names.min, defaults.min);
      const max = read(names.max, defaults.max);
      if (min > max) throw invalidParameter(`${path}.${names.max}`, `must be at least ${names.min} (${min})`);
      return { min, max, not: values.not === true ? true : undefined };
    },
  );
}

export const wordCount = countCheck({ min: 'minWords', max: 'maxWords', unit: 'words' }, { min: 0, max: 99_999 }, countWords);

export const sentenceCount = countCheck(
  { min: 'minSentences', max: 'maxSentences', unit: 'sentences' },
  { min: 0, max: 99_999 },
  countSentences,
);

export const characterCount = countCheck(
  { min: 'minCharacters', max: 'maxCharacters', unit: 'characters' },
  { min: 0, max: 9_999_999 },
  countCharacters,
);
