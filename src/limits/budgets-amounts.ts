/**
 * Budget amounts as integers. Live counters add and compare whole units, never floats that drift: a token budget
 * counts tokens, a cost budget counts nano-dollars (1e-9 USD; the cheapest catalog prices are a few nano-dollars a
 * token). Redis' Lua numbers are doubles, exact up to 2^53 units, so a limit is capped at a quarter of that
 * (MAX_LIMIT_UNITS: $2,251,799 or 2.2e15 tokens) and every amount, reservations and overshoot included, stays
 * exact. Decimal text (the database's numeric columns, USD) converts to and from units with string arithmetic only.
 */
export type BudgetType = 'cost' | 'tokens';

/** nano-dollars per dollar */
const COST_SCALE = 1_000_000_000n;
const COST_DECIMALS = 9;

/** the largest limit a budget may have, in units: exact in a double with room for reservations and overshoot on top */
export const MAX_LIMIT_UNITS = 2 ** 51;

/** The largest `credit_limit` the admin API accepts, in the budget's own unit (USD or tokens). */
export function maxCreditLimit(type: BudgetType): number {
  return type === 'cost' ? Math.floor(MAX_LIMIT_UNITS / Number(COST_SCALE)) : MAX_LIMIT_UNITS;
}

/**
 * Decimal text or a number (`12.5`, `"0.000000150000"`, `1e-7`) -> whole units, rounded down: a limit is never
 * raised by rounding. Undefined for anything that is not a finite number of 0 or more.
 */
export function toUnits(value: string | number, type: BudgetType): number | undefined {
  const text = typeof value === 'number' ? numberText(value) : value.trim();
  const match = /^(\d+)(?:\.(\d*))?$/.exec(text);
  if (!match) return undefined;
  const whole = BigInt(match[1]!);
  if (type === 'tokens') return Number(whole);
  const fraction = (match[2] ?? '').slice(0, COST_DECIMALS).padEnd(COST_DECIMALS, '0');
  return Number(whole * COST_SCALE + BigInt(fraction));
}

/** A JS number as plain decimal text (no exponent): `1e-7` -> `0.0000001`. */
function numberText(value: number): string {
  if (!Number.isFinite(value) || value < 0) return 'invalid';
  const text = String(value);
  if (!text.includes('e')) return text;
  return value.toFixed(20).replace(/\.?0+$/, '');
}

/** Units -> decimal text in the budget's unit: nano-dollars as USD with nine decimals, tokens as an integer. */
export function fromUnits(units: number, type: BudgetType): string {
  const whole = BigInt(Math.max(0, Math.round(units)));
  if (type === 'tokens') return whole.toString();
  const fraction = (whole % COST_SCALE).toString().padStart(COST_DECIMALS, '0');
  return `${whole / COST_SCALE}.${fraction}`;
}

/** Units -> the number the admin API shows (`current_usage`): exact for tokens, to the nano-dollar for cost. */
export function unitsAsNumber(units: number, type: BudgetType): number {
  return Number(fromUnits(units, type));
}
