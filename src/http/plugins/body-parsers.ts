/**
 * Body parsing keeps the raw bytes: an OpenAI-compatible upstream gets them untouched (no re-serialising), while
 * validation reads the parsed JSON. Any other content type (multipart audio, files) is kept as bytes for the
 * pass-through routes. A JSON number that is not finite (`1e309`) is a 400 naming its path.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalidParam } from '../../core/errors.ts';
import { nonFiniteNumberPath } from '../json-value-rules.ts';

export function registerBodyParsers(app: FastifyInstance): void {
  app.decorateRequest('rawBody', undefined);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    /^application\/([\w.+-]*\+)?json$/,
    { parseAs: 'buffer' },
    (request: FastifyRequest, body: string | Buffer, done) => {
      if (typeof body === 'string') body = Buffer.from(body);
      request.rawBody = body;
      if (body.length === 0) {
        done(null, undefined);
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch (error) {
        done(invalidParam('body', `The request body is not valid JSON: ${(error as Error).message}`, 'invalid_json'), undefined);
        return;
      }
      // 1e309 parses to Infinity: refused here, once, for every JSON body (inference, pass-through, admin)
      const nonFinite = nonFiniteNumberPath(parsed);
      if (nonFinite !== undefined) {
        const param = nonFinite === '' ? 'body' : nonFinite;
        done(invalidParam(param, `${param} is a number too large to represent (it is not finite).`, 'invalid_number'), undefined);
        return;
      }
      done(null, parsed);
    },
  );
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request: FastifyRequest, body: string | Buffer, done) => {
    request.rawBody = typeof body === 'string' ? Buffer.from(body) : body;
    done(null, undefined);
  });
}
