/**
 * Text-shape checks: default.regexMatch, default.contains, default.endsWith and the case checks
 * (default.alllowercase / default.isAllLowerCase, default.alluppercase). All pure and synchronous.
 */
import { Type } from '@sinclair/typebox';
import { Not, ParameterSchema, decide, defineCheck, definePreparedCheck, invalidParameter } from '../define.ts';

/**
 * The rule is operator configuration, not client input, but it runs against client text on every request and
 * JavaScript regexes cannot be interrupted: a length cap keeps accidental catastrophic patterns less likely.
 */
export const MAX_REGEX_LENGTH = 1000;

const RegexMatchParameters = ParameterSchema({ rule: Type.String({ minLength: 1 }), not: Not });

export const regexMatch = definePreparedCheck(
  RegexMatchParameters,
  (context, parameters: { regex: RegExp; not: boolean | undefined }) => {
    const match = parameters.regex.exec(context.text);
    return {
      ...decide(match !== null, parameters.not, {
        yes: `The text matches the pattern ${parameters.regex.source}.`,
        no: `The text does not match the pattern ${parameters.regex.source}.`,
      }),
      data: { matched: match !== null, ...(match ? { index: match.index } : {}) },
    };
  },
  (parameters, path) => {
    if (parameters.rule.length > MAX_REGEX_LENGTH) {
      throw invalidParameter(`${path}.rule`, `the pattern must be at most ${MAX_REGEX_LENGTH} characters`);
    }
    try {
      // no flags: the rule is the pattern alone, as the vendor's config format writes it
      return { regex: new RegExp(parameters.rule), not: parameters.not };
    } catch (error) {
      throw invalidParameter(`${path}.rule`, `not a valid regular expression (${(error as Error).message})`);
    }
  },
);

const Operator = Type.Union([Type.Literal('any'), Type.Literal('all'), Type.Literal('none')]);
const ContainsParameters = ParameterSchema({
  operator: Type.Optional(Operator),
  words: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
});

/**
 * Case-insensitive substring matching: a word list is usually a block or allow list, and "Secret" slipping past
 * a list holding "secret" would be the surprising outcome.
 */
export const contains = defineCheck(ContainsParameters, (context, parameters) => {
  const operator = parameters.operator ?? 'any';
  const haystack = context.text.toLowerCase();
  const found = parameters.words.filter((word) => haystack.includes(word.toLowerCase()));
  const missing = parameters.words.filter((word) => !found.includes(word));
  const verdict =
    operator === 'any' ? found.length > 0 : operator === 'all' ? missing.length === 0 : found.length === 0;
  const explanation = describeContains(operator, verdict, found, missing);
  return { verdict, explanation, data: { operator, found, missing } };
});

const EndsWithParameters = ParameterSchema({ suffix: Type.String({ minLength: 1 }), not: Not });

/** Trailing whitespace is ignored: models routinely end an answer with a newline. */
export const endsWith = defineCheck(EndsWithParameters, (context, parameters) =>
  decide(context.text.trimEnd().endsWith(parameters.suffix), parameters.not, {
    yes: `The text ends with ${quote(parameters.suffix)}.`,
    no: `The text does not end with ${quote(parameters.suffix)}.`,
  }),
);

const CaseParameters = ParameterSchema({ not: Not });
// By Unicode category rather than `text === text.toLowerCase()`: case mapping is not a round trip ('ß' upper-cases
// to 'SS'), and a text with no letters at all is neither refused by one check nor by the other.
const UPPERCASE_LETTER = /\p{Lu}|\p{Lt}/u;
const LOWERCASE_LETTER = /\p{Ll}/u;

export const allLowercase = defineCheck(CaseParameters, (context, parameters) =>
  decide(!UPPERCASE_LETTER.test(context.text), parameters.not, {
    yes: 'The text is all lowercase.',
    no: 'The text contains uppercase letters.',
  }),
);

export const allUppercase = defineCheck(CaseParameters, (context, parameters) =>
  decide(!LOWERCASE_LETTER.test(context.text), parameters.not, {
    yes: 'The text is all uppercase.',
    no: 'The text contains lowercase letters.',
  }),
);

function describeContains(operator: 'any' | 'all' | 'none', verdict: boolean, found: string[], missing: string[]): string {
  const list = (words: string[]) => words.map(quote).join(', ');
  if (operator === 'none') return verdict ? 'The text contains none of the words.' : `The text contains ${list(found)}.`;
  if (verdict) return `The text contains ${list(found)}.`;
  return operator === 'any' ? 'The text contains none of the words.' : `The text lacks ${list(missing)}.`;
}

function quote(text: string): string {
  return JSON.stringify(text);
}
