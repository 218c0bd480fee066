/**
 * Rules across an integration's fields that its schema cannot state: which fields a secret mapping may target
 * depends on the provider (`key`, or a configuration field the provider reads), and each field is mapped once.
 */
import { invalidParam } from '../../core/errors.ts';
import { configurationFields, type IntegrationRules } from './configurations.ts';
import type { SecretMappingInput } from './inputs.ts';

export function checkSecretMappings(mappings: readonly SecretMappingInput[], providerId: string, rules: IntegrationRules): SecretMappingInput[] {
  const allowed = new Set(['key', ...configurationFields(providerId, rules).map((field) => `configurations.${field}`)]);
  const seen = new Set<string>();
  mappings.forEach((mapping, index) => {
    const param = `secret_mappings[${index}].target_field`;
    if (!allowed.has(mapping.target_field)) {
      throw invalidParam(param, `${param} must be one of ${[...allowed].join(', ')} for ${providerId}.`);
    }
    if (seen.has(mapping.target_field)) throw invalidParam(param, `${param}: ${mapping.target_field} is mapped twice.`);
    seen.add(mapping.target_field);
  });
  // stored as given (a mapping is resolved per request by the secret references group)
  return mappings.map((mapping) => ({ ...mapping }));
}
