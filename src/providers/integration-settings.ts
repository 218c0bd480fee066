/**
 * What a provider reads from an integration (api-surface §3.3 `configurations`) beyond its cloud settings: fields
 * that only a stored integration holds, because they are structured (a list of Azure deployments) rather than one
 * header's string, and the rules between fields (an auth mode and the credentials it needs). Declared in the
 * provider's folder and looked up by provider name (registry.ts), so the integrations group checks and applies them
 * without naming a provider.
 */

export interface IntegrationSetting {
  /** the `configurations` field */
  readonly field: string;
  /** the value as sent, checked, returned as it is stored (JSON); throws a 400 naming `param` or a field below it */
  parse(value: unknown, param: string): unknown;
  /** the cloud settings (ProviderTarget.cloud keys) the stored value gives a request for `model`; a 400 if none fits */
  cloudFor(stored: unknown, model: string | undefined): Record<string, string>;
}

/** The integration's configurations as a rule sees them: values of plain fields; secrets and mapped fields only as present. */
export interface PresentConfigurations {
  /** the plain value of a field (undefined for a secret, a mapped field or an absent one) */
  value(field: string): unknown;
  /** whether the field will have a value: given, kept from the stored one, or filled by a secret mapping */
  has(field: string): boolean;
  /** whether the integration holds a key */
  hasKey: boolean;
}

export interface IntegrationDeclaration {
  readonly settings: readonly IntegrationSetting[];
  /** string settings that hold a URL the gateway calls (a token endpoint): checked by the SSRF guard when saved */
  readonly urlFields?: readonly string[];
  /** rules between fields; throws a 400 naming `configurations.<field>` */
  check?(configurations: PresentConfigurations): void;
}
