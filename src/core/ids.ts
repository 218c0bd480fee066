/**
 * Record ids are UUIDs. One definition for every layer: the transport checks path and body fields with it, the
 * use cases and repositories tell an id from a slug with it (a slug never has a UUID's form).
 */

/** As a JSON-schema `pattern` (TypeBox string schemas); either case is accepted. */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

const UUID = new RegExp(UUID_PATTERN);

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
