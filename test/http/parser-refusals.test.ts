import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawExchange as exchange, type RawAnswer } from '../support/raw-http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * What Node's HTTP parser refuses before the app sees it (a request line or
 * headers over its 16 KiB limit, a malformed request line or header) is
 * answered like every other refusal: a complete response with the contract's
 * problem+json body, echoing nothing of the request. Raw sockets: fetch sends
 * no such request.
 */

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

const rawExchange = (request: string): Promise<RawAnswer> => exchange(app.baseUrl, request);

const SECRET = 'Bearer never-echo-this-token';
const FILLER = 'z'.repeat(20_000);

/** The problem body, checked against the contract's shape and the response's own headers. */
function expectProblem(answer: RawAnswer, status: number, code: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
  expect(Number(answer.headers.get('content-length'))).toBe(Buffer.byteLength(answer.body));
  const problem = JSON.parse(answer.body);
  expect(Object.keys(problem).sort()).toEqual(['code', 'detail', 'requestId', 'status', 'title', 'type']);
  expect(problem).toMatchObject({ type: 'about:blank', status, code, requestId: answer.headers.get('x-request-id') });
  // Nothing of the request comes back: not its credential, not its oversized part.
  expect(answer.text).not.toContain('never-echo-this-token');
  expect(answer.text).not.toContain('zzzz');
}

describe('over the 16 KiB limit', () => {
  it('headers get 431 REQUEST_HEADER_FIELDS_TOO_LARGE as problem+json', async () => {
    const answer = await rawExchange(`GET /api/v1/auth/me HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${SECRET}\r\nX-Filler: ${FILLER}\r\n\r\n`);
    expectProblem(answer, 431, 'REQUEST_HEADER_FIELDS_TOO_LARGE');
    expect(JSON.parse(answer.body).detail).toContain('16384 bytes');
  });

  it('a request line gets 431 REQUEST_HEADER_FIELDS_TOO_LARGE as problem+json', async () => {
    const answer = await rawExchange(`GET /api/v1/restaurant/meal-menus?q=${FILLER} HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${SECRET}\r\n\r\n`);
    expectProblem(answer, 431, 'REQUEST_HEADER_FIELDS_TOO_LARGE');
  });
});

describe.each([
  ['a request line with a control character in the target', `GET /health\u0001z HTTP/1.1\r\nAuthorization: ${SECRET}\r\n\r\n`],
  ['a request line with an unknown protocol', `GET /healthz HTTX/1.1\r\nAuthorization: ${SECRET}\r\n\r\n`],
  ['a method that is no token', `G(T /healthz HTTP/1.1\r\nAuthorization: ${SECRET}\r\n\r\n`],
  ['a header name with a space', `GET /healthz HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${SECRET}\r\nBad Header: x\r\n\r\n`],
  ['bytes that are no HTTP at all', `\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003 ${SECRET}\r\n\r\n`],
])('%s', (_name, request) => {
  it('gets 400 BAD_REQUEST as problem+json', async () => {
    expectProblem(await rawExchange(request), 400, 'BAD_REQUEST');
  });
});

describe('after such refusals', () => {
  it('the service answers as usual', async () => {
    const response = await app.http('GET', '/healthz');
    expect(response.status).toBe(200);
  });
});
