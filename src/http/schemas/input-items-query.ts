/**
 * Query string of GET /responses/:id/input_items. Values arrive as strings; parseInputItemsQuery
 * (validate.ts) parses and range-checks them. The schema documents the raw shape (e.g. for a route schema).
 */
import { Type, type Static } from '@sinclair/typebox';
import { OPEN, StringEnum } from '../../core/schemas/common.ts';

export const INPUT_ITEMS_DEFAULT_LIMIT = 20;
export const INPUT_ITEMS_MAX_LIMIT = 100;
export const INPUT_ITEMS_ORDERS = ['asc', 'desc'] as const;
/** single-valued: each may be given once */
export const INPUT_ITEMS_PARAMETERS: ReadonlySet<string> = new Set(['limit', 'order', 'after', 'before']);

export const InputItemsQuerySchema = Type.Object(
  {
    limit: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
    order: Type.Optional(StringEnum(INPUT_ITEMS_ORDERS)),
    after: Type.Optional(Type.String({ minLength: 1 })),
    before: Type.Optional(Type.String({ minLength: 1 })),
  },
  OPEN,
);
export type RawInputItemsQuery = Static<typeof InputItemsQuerySchema>;

/** The parsed query: `limit` 1..100 (default 20), `order` asc|desc (default asc), optional cursors. */
export const ParsedInputItemsQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: INPUT_ITEMS_MAX_LIMIT }),
  order: StringEnum(INPUT_ITEMS_ORDERS),
  after: Type.Optional(Type.String({ minLength: 1 })),
  before: Type.Optional(Type.String({ minLength: 1 })),
});
export type InputItemsQuery = Static<typeof ParsedInputItemsQuerySchema>;
