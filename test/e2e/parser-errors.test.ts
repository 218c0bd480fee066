/**
 * Errors raised below the routes (Node's HTTP parser, Node's HTTP server, Fastify's router and body reader) leave
 * in the OpenAI error shape with an honest status, over a raw socket: each malformed request is sent exactly as
 * written here, and the raw answer is parsed by hand (an HTTP client would refuse to send most of these).
 */
import assert from 'node:assert/strict';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { answerClientError } from '../../src/http/plugins/client-errors.ts';
import { registerErrorHandling } from '../../src/http/plugins/errors.ts';
import { errorAnswerOptions, registerServerAnswers } from '../../src/http/plugins/server-answers.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
let port: number;

before(async () => {
  gateway = await startTestGateway();
  port = Number(new URL(gateway.origin).port);
});

after(async () => {
  await gateway.close();
});

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends the bytes in one write and collects everything until the gateway closes the connection. */
function exchange(bytes: string | Buffer, socketPort = port): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPort, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // a reset after the answer arrived still leaves the answer to check; no answer at all fails the assertions
    socket.on('error', () => resolve(Buffer.concat(chunks)));
    socket.on('close', () => resolve(Buffer.concat(chunks)));
    socket.on('connect', () => socket.write(bytes));
    socket.setTimeout(10_000, () => {
      socket.destroy();
      reject(new Error(`no close within 10 s; received: ${Buffer.concat(chunks).toString('latin1')}`));
    });
  });
}

/** Splits raw bytes into HTTP/1.1 responses (content-length or chunked bodies). */
function parseResponses(raw: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = raw;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    assert.ok(end > 0, `an incomplete response head: ${JSON.stringify(rest.toString('latin1'))}`);
    const [statusLine, ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const match = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine ?? '');
    assert.ok(match, `not a status line: ${JSON.stringify(statusLine)}`);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let body: Buffer;
    rest = rest.subarray(end + 4);
    if (headers['transfer-encoding'] === 'chunked') {
      const parts: Buffer[] = [];
      for (;;) {
        const lineEnd = rest.indexOf('\r\n');
        const size = Number.parseInt(rest.subarray(0, lineEnd).toString('latin1'), 16);
        parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
        rest = rest.subarray(lineEnd + 2 + size + 2);
        if (size === 0) break;
      }
      body = Buffer.concat(parts);
    } else {
      const length = Number(headers['content-length'] ?? 0);
      assert.ok(rest.length >= length, 'a body shorter than its content-length');
      body = rest.subarray(0, length);
      rest = rest.subarray(length);
    }
    responses.push({ status: Number(match[1]), headers, body: body.toString('utf8') });
  }
  return responses;
}

type ErrorFields = { message: string; type: string; param: string | null; code: string | null };

/** The answer is JSON in the error shape, with a message that shows no internals. */
function assertErrorShape(response: RawResponse, status: number): ErrorFields {
  assert.equal(response.status, status, response.body);
  assert.match(response.headers['content-type'] ?? '', /^application\/json/);
  const parsed = JSON.parse(response.body) as { error: ErrorFields };
  assert.deepEqual(Object.keys(parsed), ['error']);
  assert.deepEqual(Object.keys(parsed.error).sort(), ['code', 'message', 'param', 'type']);
  assert.ok(parsed.error.message.length > 0);
  assert.equal(typeof parsed.error.type, 'string');
  assert.equal(typeof parsed.error.code, 'string');
  assert.doesNotMatch(parsed.error.message, /HPE_|FST_ERR|llhttp|\n\s+at /);
  return parsed.error;
}

/** One malformed request on its own connection: exactly one answer, an error, then the connection closes. */
async function sendMalformed(bytes: string | Buffer, status: number): Promise<{ error: ErrorFields; response: RawResponse }> {
  const responses = parseResponses(await exchange(bytes));
  assert.equal(responses.length, 1, `one answer expected, got ${responses.map((response) => response.status).join(', ')}`);
  const [response] = responses as [RawResponse];
  const error = assertErrorShape(response, status);
  return { error, response };
}

const HEAD = 'Host: 127.0.0.1\r\n';

describe("Node's HTTP parser: the clientError answers", () => {
  test('a 100 KB header answers 431 and closes the connection', async () => {
    const { error, response } = await sendMalformed(`GET /health HTTP/1.1\r\n${HEAD}x-big: ${'a'.repeat(100 * 1024)}\r\n\r\n`, 431);
    assert.equal(error.type, 'invalid_request_error');
    assert.equal(error.code, 'headers_too_large');
    assert.equal(response.headers.connection, 'close');
  });

  test('a NUL byte in a header value answers 400 naming the header', async () => {
    const { error, response } = await sendMalformed(`GET /health HTTP/1.1\r\n${HEAD}x-gateway-metadata: a\u0000b\r\n\r\n`, 400);
    assert.equal(error.param, 'x-gateway-metadata');
    assert.equal(error.code, 'invalid_header');
    assert.equal(response.headers.connection, 'close');
  });

  test('a control byte in a header value answers 400 naming the header', async () => {
    const { error } = await sendMalformed(`GET /health HTTP/1.1\r\n${HEAD}x-gateway-trace-id: a\u0007b\r\n\r\n`, 400);
    assert.equal(error.param, 'x-gateway-trace-id');
  });

  test('two different Content-Length headers answer 400 naming content-length', async () => {
    const { error } = await sendMalformed(
      `POST /v1/chat/completions HTTP/1.1\r\n${HEAD}Content-Type: application/json\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n{"a":1}`,
      400,
    );
    assert.equal(error.param, 'content-length');
    assert.equal(error.code, 'invalid_content_length');
  });

  test('Content-Length together with chunked encoding answers 400 naming transfer-encoding', async () => {
    const { error } = await sendMalformed(
      `POST /v1/chat/completions HTTP/1.1\r\n${HEAD}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      400,
    );
    assert.equal(error.param, 'transfer-encoding');
  });

  test('an invalid chunk size answers 400 naming body', async () => {
    const { error } = await sendMalformed(
      `POST /v1/chat/completions HTTP/1.1\r\n${HEAD}x-gateway-api-key: ${gateway.adminKey}\r\nContent-Type: application/json\r\n` +
        'Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
      400,
    );
    assert.equal(error.param, 'body');
    assert.equal(error.code, 'invalid_chunked_encoding');
  });

  test('a request line that is not HTTP answers 400', async () => {
    const { error } = await sendMalformed('\u0001\u0002 nonsense\r\n\r\n', 400);
    assert.equal(error.code, 'malformed_request');
  });

  test('a body longer than its Content-Length: the first request is answered, the leftover gets a 400', async () => {
    const raw = await exchange(`GET /health HTTP/1.1\r\n${HEAD}Content-Length: 5\r\n\r\nhello}} and more bytes\r\n\r\n`);
    const responses = parseResponses(raw);
    assert.deepEqual(
      responses.map((response) => response.status),
      [200, 400],
    );
    assert.deepEqual(JSON.parse(responses[0]!.body), { status: 'ok' });
    const error = assertErrorShape(responses[1]!, 400);
    assert.equal(error.code, 'malformed_request');
    assert.equal(responses[1]!.headers.connection, 'close');
  });
});

describe("Node's HTTP server and Fastify's router and body reader", () => {
  test('an invalid percent-encoding in the path answers 400 naming path', async () => {
    for (const path of ['/v1/%c0%ae', '/v1/models%', '/%zz']) {
      const { error } = await sendMalformed(`GET ${path} HTTP/1.1\r\n${HEAD}Connection: close\r\n\r\n`, 400);
      assert.equal(error.param, 'path', path);
      assert.equal(error.code, 'invalid_path', path);
    }
  });

  test('an HTTP/1.1 request without Host answers 400 naming host', async () => {
    const { error } = await sendMalformed('GET /health HTTP/1.1\r\nConnection: close\r\n\r\n', 400);
    assert.equal(error.param, 'host');
  });

  test('an Expect other than 100-continue answers 417 naming expect', async () => {
    const { error } = await sendMalformed(`GET /health HTTP/1.1\r\n${HEAD}Expect: teapot\r\nConnection: close\r\n\r\n`, 417);
    assert.equal(error.param, 'expect');
  });

  test('a body over the body limit answers 413 naming body', async () => {
    const { error } = await sendMalformed(
      `POST /v1/chat/completions HTTP/1.1\r\n${HEAD}x-gateway-api-key: ${gateway.adminKey}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${60 * 1024 * 1024}\r\n\r\n{`,
      413,
    );
    assert.equal(error.param, 'body');
    assert.equal(error.code, 'body_too_large');
  });

  test('a malformed JSON body answers 400 naming body', async () => {
    const body = '{"model": ';
    const { error } = await sendMalformed(
      `POST /v1/chat/completions HTTP/1.1\r\n${HEAD}x-gateway-api-key: ${gateway.adminKey}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      400,
    );
    assert.equal(error.param, 'body');
  });

  test('a malformed content type answers in the error shape naming content-type', async () => {
    const { error, response } = await sendMalformed(
      `POST /v1/chat/completions HTTP/1.1\r\n${HEAD}x-gateway-api-key: ${gateway.adminKey}\r\nContent-Type: ;;;\r\n` +
        'Content-Length: 2\r\nConnection: close\r\n\r\n{}',
      415,
    );
    assert.equal(error.param, 'content-type', response.body);
  });

  test('an unknown method on a known path answers 404 in the error shape', async () => {
    await sendMalformed(`PROPFIND /health HTTP/1.1\r\n${HEAD}Connection: close\r\n\r\n`, 404);
  });

  test('CONNECT answers 405 in the error shape', async () => {
    const { error } = await sendMalformed(`CONNECT 127.0.0.1:443 HTTP/1.1\r\n${HEAD}\r\n`, 405);
    assert.equal(error.param, 'method');
  });
});

describe('the same options on a bare Fastify app', () => {
  function bareApp(): FastifyInstance {
    const app = Fastify({ ...errorAnswerOptions });
    registerErrorHandling(app);
    registerServerAnswers(app);
    return app;
  }

  // the gateway's /v1 wildcard catches any overlong parameter first, so the router's limit shows only here
  test('a path parameter over the router limit answers 414 naming path', async () => {
    const app = bareApp();
    app.get('/items/:id', async () => ({ ok: true }));
    const response = await app.inject({ method: 'GET', url: `/items/${'a'.repeat(200)}` });
    const error = assertErrorShape({ status: response.statusCode, headers: response.headers as Record<string, string>, body: response.body }, 414);
    assert.equal(error.param, 'path');
    await app.close();
  });

  test('a malformed request pipelined behind a slow one is answered after it, never inside it', async () => {
    const app = bareApp();
    let release: () => void = () => {};
    const holding = new Promise<void>((resolve) => {
      app.get('/hold', (_request, reply) => {
        release = () => void reply.send({ held: true });
        resolve();
      });
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const socket = connect((app.server.address() as AddressInfo).port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      socket.write(`GET /hold HTTP/1.1\r\n${HEAD}\r\n}} not a request\r\n\r\n`);
      await holding;
      release();
      await ended;
      const responses = parseResponses(Buffer.concat(chunks));
      assert.deepEqual(
        responses.map((response) => response.status),
        [200, 400],
      );
      assert.deepEqual(JSON.parse(responses[0]!.body), { held: true });
      assertErrorShape(responses[1]!, 400);
    } finally {
      await app.close();
    }
  });

  test('a request that arrives while the app drains answers 503 in the error shape', async () => {
    const app = bareApp();
    let release: () => void = () => {};
    const holding = new Promise<void>((resolve) => {
      app.get('/hold', (_request, reply) => {
        release = () => void reply.send({ held: true });
        resolve();
      });
    });
    app.get('/next', async () => ({ ok: true }));
    let draining: () => void = () => {};
    const drainStarted = new Promise<void>((resolve) => (draining = resolve));
    app.addHook('preClose', (done) => {
      draining();
      done();
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const socket = connect((app.server.address() as AddressInfo).port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(`GET /hold HTTP/1.1\r\n${HEAD}\r\n`);
    await holding;
    const closed = app.close();
    await drainStarted;
    // the connection is busy, so the drain keeps it open: a pipelined request still arrives
    socket.write(`GET /next HTTP/1.1\r\n${HEAD}\r\n`);
    release();
    await ended;
    await closed;
    const responses = parseResponses(Buffer.concat(chunks));
    assert.deepEqual(
      responses.map((response) => response.status),
      [200, 503],
    );
    const error = assertErrorShape(responses[1]!, 503);
    assert.equal(error.code, 'shutting_down');
    assert.equal(responses[1]!.headers.connection, 'close');
  });
});

describe('the clientError answer on a bare socket', () => {
  /** Runs the handler on the server side of a real connection and returns what the client read. */
  async function answerOnSocket(error: Error & { code?: string }, answer: (socket: Socket) => void = (socket) => answerClientError(error, socket)): Promise<Buffer> {
    const server = createServer(answer);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      return await exchange('', (server.address() as AddressInfo).port);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  test('a header timeout answers 408', async () => {
    const error = Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
    const [response] = parseResponses(await answerOnSocket(error));
    const fields = assertErrorShape(response!, 408);
    assert.equal(fields.type, 'timeout_error');
  });

  test('a parser that reports its error again gets one answer, whole', async () => {
    const error = Object.assign(new Error('Parse Error'), { code: 'HPE_INVALID_METHOD' });
    const raw = await answerOnSocket(error, (socket) => {
      answerClientError(error, socket);
      answerClientError(error, socket);
    });
    const responses = parseResponses(raw);
    assert.equal(responses.length, 1);
    assertErrorShape(responses[0]!, 400);
  });

  test('nothing is written to a socket that is no longer writable', async () => {
    const error = Object.assign(new Error('Parse Error'), { code: 'HPE_INVALID_METHOD' });
    const raw = await answerOnSocket(error, (socket) => {
      socket.end();
      answerClientError(error, socket);
    });
    assert.equal(raw.length, 0);
  });
});

test('the gateway still serves GET /health after every malformed request', async () => {
  const [response] = parseResponses(await exchange(`GET /health HTTP/1.1\r\n${HEAD}Connection: close\r\n\r\n`));
  assert.equal(response!.status, 200);
  assert.deepEqual(JSON.parse(response!.body), { status: 'ok' });
});
