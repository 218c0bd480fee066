/**
 * The providers' side of secret mappings (src/domain/providers/secret-mappings.ts) asks for every mapping of a
 * record at once, by target field; this adapts the one-mapping resolver to it. The mappings are resolved
 * together (each reference's value is fetched once per TTL whatever the number of records using it);
 * `value_format: json` reads the value as JSON (a settings object kept in a manager), anything else as a string.
 */
import type { SecretMappingResolver as RecordMappingResolver } from '../providers/secret-mappings.ts';
import { secretUnavailable } from '../../secrets/managers/errors.ts';
import type { SecretMappingResolver } from './resolve.ts';

function asJson(value: string, reference: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw secretUnavailable(`secret reference "${reference}"`, 'the mapping\'s value_format is json, but the value is not JSON.');
  }
}

export function mappedValues(resolve: SecretMappingResolver): RecordMappingResolver {
  return async (mappings, context) => {
    const values = await Promise.all(mappings.map(async (mapping) => {
      const value = await resolve(context.organisationId, context.workspaceId, mapping);
      return [mapping.target_field, mapping.value_format === 'json' ? asJson(value, mapping.secret_reference_id) : value] as const;
    }));
    return new Map(values);
  };
}
