/** GET /console and /console/* (src/http/routes/console.ts): the admin console's static files, outside /v1 and without a key. */
import { errors } from './responses.ts';
import type { Operation, Paths, Server } from './types.ts';

const ROOT: Server[] = [{ url: '/', description: 'the gateway root, outside /v1' }];
const HTML = { 'text/html': { schema: { type: 'string' } } };

function page(operation: Omit<Operation, 'security' | 'tags'>): Operation {
  return { ...operation, tags: ['console'], security: [] };
}

export function consolePaths(): Paths {
  return {
    '/console': {
      servers: ROOT,
      get: page({
        operationId: 'getConsole',
        summary: 'The admin console (a single-page app over the admin API)',
        description: 'index.html of the console built by `npm run build` (dist/console), `cache-control: no-cache`, with a strict content security policy. The page asks for a gateway key and calls the /v1 admin API with it; it holds no key itself.',
        responses: {
          '200': { description: 'the console\'s page', content: HTML },
          ...errors({ 503: 'the console has not been built (run `npm run build`)' }),
        },
      }),
    },
    '/console/{path}': {
      servers: ROOT,
      'x-gateway-wildcard-parameter': 'path',
      get: page({
        operationId: 'getConsoleFile',
        summary: 'A file of the admin console, or one of its pages',
        description: 'A built file (hashed files under `assets/` are cached for a year); any other path without a file extension is a page of the app and answers its index.html. A path leaving the console\'s folder is a 404.',
        parameters: [{ name: 'path', in: 'path', required: true, description: 'the file or page path under /console/', schema: { type: 'string' } }],
        responses: {
          '200': { description: 'the file, with its content type', content: { ...HTML, 'text/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } } } },
          ...errors({ 404: 'no such file', 503: 'the console has not been built (run `npm run build`)' }),
        },
      }),
    },
  } as Paths;
}
