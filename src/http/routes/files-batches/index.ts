/**
 * Files, batches and fine-tuning (api-surface §2.4): explicit routes, ahead of the pass-through wildcard, so that
 * what callers create is recorded per workspace and what they read is scoped to it. Registered in a plugin of its
 * own: only here does a multipart body reach the handler as the raw request stream (the app's default parser
 * buffers every other content type), so an upload is piped to the provider and never held whole.
 */
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../../storage/database.ts';
import type { ForwardDeps } from '../../forward.ts';
import { registerBatchRoutes } from './batches.ts';
import { registerFileRoutes } from './files.ts';
import { registerFineTuningRoutes } from './fine-tuning.ts';

export function registerFilesBatchesRoutes(app: FastifyInstance, deps: ForwardDeps & { database: Database; now?: (() => Date) | undefined }): void {
  const resourceDeps = { ...deps, now: deps.now ?? (() => new Date()) };
  app.register(async (scope) => {
    // the handler reads request.raw itself; nothing of the body is read here
    scope.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null, undefined));
    registerFileRoutes(scope, resourceDeps);
    registerBatchRoutes(scope, resourceDeps);
    registerFineTuningRoutes(scope, resourceDeps);
  });
}
