/**
 * Secret references of type `env` read an environment variable of the gateway (the config module is the only one
 * that reads process.env). Any variable may be named except the gateway's own settings and its database and
 * Redis connection settings: an admin key must not be able to route the encryption key or the database password
 * into a provider request.
 */

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,254}$/;

/** the gateway's settings (GATEWAY_*, see src/config/index.ts) and what opens its stores (libpq's PG* variables) */
const REFUSED_PREFIXES = ['GATEWAY_', 'PG'];
const REFUSED_NAMES = new Set([
  'DATABASE_URL',
  'REDIS_URL',
  'TEST_DATABASE_URL',
  'TEST_REDIS_URL',
  'PORT',
  'HOST',
  'LOG_LEVEL',
  'ORGANISATION_HEADERS_TO_MASK',
  'NODE_OPTIONS',
]);

/** Why `name` cannot be read as a secret, or undefined when it can. */
export function environmentSecretRefusal(name: string): string | undefined {
  if (!NAME.test(name)) return 'an environment variable name is letters, digits and underscores, not starting with a digit';
  const upper = name.toUpperCase();
  if (REFUSED_NAMES.has(upper) || REFUSED_PREFIXES.some((prefix) => upper.startsWith(prefix))) {
    return `${name} is one of the gateway's own settings and cannot be read as a secret`;
  }
  return undefined;
}

/** The variable's value; undefined when it is unset, empty, or not readable as a secret. */
export function readEnvironmentSecret(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (environmentSecretRefusal(name) !== undefined) return undefined;
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}
