/**
 * GET /console and /console/*: the admin console, a static single-page app built by `npm run build` into
 * dist/console. No key: the page holds nothing secret, and every call it makes goes to the public /v1 admin API
 * with the key the person types in. Hashed assets are cached for a year, index.html never; any other path under
 * /console is the app's own (SPA fallback), except one that names a file (has an extension) and does not exist.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { GatewayError, notFound } from '../../core/errors.ts';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** No inline script or style element can run: everything the page loads comes from this origin. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** The checkout or install root: the nearest folder above this module holding package.json (src/ under tsx, dist/ compiled). */
function projectRoot(): string {
  let directory = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(directory, 'package.json'))) {
    const parent = path.dirname(directory);
    if (parent === directory) return process.cwd();
    directory = parent;
  }
  return directory;
}

export function defaultConsoleDirectory(): string {
  return path.join(projectRoot(), 'dist', 'console');
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function send(reply: FastifyReply, file: string, cacheControl: string): FastifyReply {
  reply.header('content-type', CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream');
  reply.header('cache-control', cacheControl);
  return reply.send(createReadStream(file));
}

/** `directory` defaults to dist/console under the project root. */
export function registerConsoleRoutes(app: FastifyInstance, options: { directory?: string } = {}): void {
  const root = path.resolve(options.directory ?? defaultConsoleDirectory());
  const index = path.join(root, 'index.html');

  const serveIndex = (reply: FastifyReply) => {
    if (!isFile(index)) {
      throw new GatewayError(503, 'server_error', 'The console is not built: run `npm run build`.', { code: 'console_not_built' });
    }
    return send(reply, index, 'no-cache');
  };

  // route-level: the other routes (the request hot path) never run it
  const onRequest = (_request: unknown, reply: FastifyReply, done: () => void) => {
    reply.headers(SECURITY_HEADERS);
    done();
  };

  app.get('/console', { onRequest }, async (_request, reply) => serveIndex(reply));

  app.get('/console/*', { onRequest }, async (request, reply) => {
    const wanted = (request.params as { '*'?: string })['*'] ?? '';
    if (wanted.includes('\0') || wanted.includes('\\')) throw notFound('No such console file.', 'console_file_not_found');
    const file = path.resolve(root, wanted);
    // `..` (raw or percent-encoded; the router has decoded it) never leaves the console's folder
    if (file !== root && !file.startsWith(root + path.sep)) throw notFound('No such console file.', 'console_file_not_found');
    if (file !== index && isFile(file)) {
      const hashed = wanted.startsWith('assets/');
      return send(reply, file, hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
    }
    // a file that is not there is a 404; any other path is a page of the app
    if (path.extname(wanted) !== '' && path.extname(wanted) !== '.html') throw notFound('No such console file.', 'console_file_not_found');
    return serveIndex(reply);
  });
}
