/**
 * Provider slugs: what `@slug` (x-gateway-provider, a model string, a config target) and x-gateway-virtual-key
 * name. The reference's alphabet (`^[a-zA-Z0-9_-]+$`), at most 255 characters, so a malformed one is refused by its
 * form before any lookup.
 */
import { randomHex6 } from '../slugs.ts';

export const PROVIDER_SLUG_PATTERN = '^[a-zA-Z0-9_-]{1,255}$';
const SLUG = new RegExp(PROVIDER_SLUG_PATTERN);

export function isProviderSlug(value: string): boolean {
  return SLUG.test(value);
}

/** `@slug`: how a provider name field (x-gateway-provider, a config target's `provider`) names a saved provider. */
export function isProviderReference(name: string): boolean {
  return name.startsWith('@') && isProviderSlug(name.slice(1));
}

/** `<name, slugified, at most 20 chars>-<6 hex>`, as the reference's virtual keys (`main-258f4d`). */
export function generateProviderSlug(name: string, fallback: string, randomHex: () => string = randomHex6): string {
  const stem = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 20)
    .replace(/-+$/, '');
  return `${stem || fallback}-${randomHex()}`;
}
