/**
 * gateway.pii (alias default.pii): local PII detection with optional redaction. The verdict is false whenever PII
 * is found, redacted or not; with `redact: true` the verdict also carries the text with each finding replaced by
 * `[REDACTED_<CATEGORY>]`, for the pipeline to forward instead of the original.
 *
 * The spec's NAME and LOCATION_ADDRESS categories need a language model, not a pattern: asking for them is a 400,
 * because silently not detecting what a guardrail promises to catch is worse than refusing the configuration.
 */
import { Type } from '@sinclair/typebox';
import { ParameterSchema, definePreparedCheck, invalidParameter } from '../define.ts';
import { applyRedactions } from '../redact.ts';
import { PII_CATEGORIES, detectPii, type Finding, type PiiCategory } from './pii-detectors.ts';

export { PII_CATEGORIES, detectPii, type Finding, type PiiCategory } from './pii-detectors.ts';

const UNSUPPORTED = new Set(['NAME', 'LOCATION_ADDRESS']);

const PiiParameters = ParameterSchema({
  categories: Type.Optional(Type.Array(Type.String(), { minItems: 1 })),
  redact: Type.Optional(Type.Boolean()),
  // accepted for compatibility with the vendor's GatewayPIIParameters; detection is local and synchronous
  timeout: Type.Optional(Type.Number({ minimum: 0 })),
});

function isPiiCategory(name: string): name is PiiCategory {
  return (PII_CATEGORIES as readonly string[]).includes(name);
}

export function redactionToken(category: PiiCategory): string {
  return `[REDACTED_${category}]`;
}

export const pii = definePreparedCheck(
  PiiParameters,
  (context, parameters: { categories: ReadonlySet<PiiCategory>; redact: boolean }) => {
    const findings = detectPii(context.text, parameters.categories);
    const counts: Partial<Record<PiiCategory, number>> = {};
    for (const finding of findings) counts[finding.category] = (counts[finding.category] ?? 0) + 1;
    // positions and categories only: the findings themselves must not end up in logs
    const data = { counts, findings: findings.map(({ category, start, end }) => ({ category, start, end })) };
    if (findings.length === 0) return { verdict: true, explanation: 'No PII found.', data };
    const summary = Object.entries(counts).map(([category, n]) => `${category} x${n}`).join(', ');
    if (!parameters.redact) return { verdict: false, explanation: `PII found: ${summary}.`, data };
    const redactions = findings.map((f: Finding) => ({ start: f.start, end: f.end, replacement: redactionToken(f.category) }));
    return {
      verdict: false,
      explanation: `PII found and redacted: ${summary}.`,
      data,
      redacted: applyRedactions(context.text, redactions),
      redactions,
    };
  },
  (parameters, path) => {
    const categories = new Set<PiiCategory>();
    (parameters.categories ?? PII_CATEGORIES).forEach((category, index) => {
      const param = `${path}.categories[${index}]`;
      if (UNSUPPORTED.has(category)) throw invalidParameter(param, `${category} detection is not supported by the local PII check`);
      if (!isPiiCategory(category)) throw invalidParameter(param, `must be one of ${PII_CATEGORIES.join(', ')}`);
      categories.add(category);
    });
    return { categories, redact: parameters.redact === true };
  },
);
