/**
 * Check id -> check. The ids are the spec's CheckId values (api-surface §3.14) that the gateway can run locally,
 * plus `default.pii` and `default.alllowercase`, the spellings the vendor's own gateway uses for two of them.
 * Checks that need a third-party service (patronus.*, azure.*, ...) or key material (default.jwt) are not here:
 * configuring one is a 400 rather than a guardrail that never fires.
 *
 * Binding validates a check's parameters once per configured check object; configs are treated as immutable,
 * so the lead's pipeline can run the same guardrail object on every request at no validation cost.
 */
import { invalidParam } from '../core/errors.ts';
import type { Allowlist, LookupAll } from '../upstream/ssrf-guard.ts';
import { characterCount, sentenceCount, wordCount } from './checks/counts.ts';
import { jsonKeys, jsonSchema } from './checks/json.ts';
import { pii } from './checks/pii.ts';
import { allowedRequestTypes, modelWhitelist, requiredMetadataKeys } from './checks/request.ts';
import { allLowercase, allUppercase, contains, endsWith, regexMatch } from './checks/text.ts';
import { createValidUrlsCheck, type HostResolver } from './checks/urls.ts';
import { createWebhookCheck, type WebhookCheckOptions } from './checks/webhook.ts';
import type { RegisteredCheck } from './define.ts';
import type { BoundCheck, CheckConfig } from './types.ts';

export interface CheckRegistryOptions {
  /** what the webhook check may reach despite the SSRF guard (GATEWAY_CUSTOM_HOST_ALLOWLIST) */
  allowlist: Allowlist;
  /** DNS for the webhook's pre-connect check */
  lookup?: LookupAll;
  /** the resolver behind the webhook's connect-time guard */
  resolve?: WebhookCheckOptions['resolve'];
  /** DNS for default.validUrls with onlyDNS */
  hostResolver?: HostResolver;
}

export interface CheckRegistry {
  /** the supported check ids, sorted */
  ids(): string[];
  has(id: string): boolean;
  /**
   * The check for `config`, bound to its validated parameters; `path` (`checks[2]`) prefixes the param of any 400.
   * Cached per config object.
   */
  bind(config: CheckConfig, path: string): BoundCheck;
  /** closes the webhook dispatcher's connections */
  close(): Promise<void>;
}

export function createCheckRegistry(options: CheckRegistryOptions): CheckRegistry {
  const webhook = createWebhookCheck({
    allowlist: options.allowlist,
    ...(options.lookup ? { lookup: options.lookup } : {}),
    ...(options.resolve ? { resolve: options.resolve } : {}),
  });
  const checks = new Map<string, RegisteredCheck>([
    ['default.regexMatch', regexMatch],
    ['default.contains', contains],
    ['default.endsWith', endsWith],
    ['default.isAllLowerCase', allLowercase],
    ['default.alllowercase', allLowercase],
    ['default.alluppercase', allUppercase],
    ['default.wordCount', wordCount],
    ['default.sentenceCount', sentenceCount],
    ['default.characterCount', characterCount],
    ['default.jsonSchema', jsonSchema],
    ['default.jsonKeys', jsonKeys],
    ['default.validUrls', createValidUrlsCheck(options.hostResolver ? { resolver: options.hostResolver } : {})],
    ['default.modelWhitelist', modelWhitelist],
    ['default.allowedRequestTypes', allowedRequestTypes],
    ['default.requiredMetadataKeys', requiredMetadataKeys],
    ['default.webhook', webhook],
    ['gateway.pii', pii],
    ['default.pii', pii],
  ]);
  const bound = new WeakMap<CheckConfig, BoundCheck>();

  return {
    ids: () => [...checks.keys()].sort(),
    has: (id) => checks.has(id),
    bind(config, path) {
      const hit = bound.get(config);
      if (hit) return hit;
      const registered = checks.get(config.id);
      if (registered === undefined) {
        throw invalidParam(`${path}.id`, `${path}.id: unknown or unsupported guardrail check ${JSON.stringify(config.id)}.`, 'unknown_guardrail_check');
      }
      const check = registered.bind(config.parameters, `${path}.parameters`);
      bound.set(config, check);
      return check;
    },
    close: () => webhook.close(),
  };
}
