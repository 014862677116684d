import { GraphQLError } from 'graphql';

/**
 * The service's one error catalogue. Every client-facing error is an AppError
 * with a code and an HTTP status set here, once. GraphQL renders it as
 * `extensions.code` + `extensions.http.status` (+ `extensions.errors`), REST
 * renders the same data as RFC 9457 `application/problem+json`.
 */
export const errorCatalogue = {
  BAD_USER_INPUT: { status: 400, title: 'Bad Request' },
  UNAUTHENTICATED: { status: 401, title: 'Unauthorized' },
  FORBIDDEN: { status: 403, title: 'Forbidden' },
  NOT_FOUND: { status: 404, title: 'Not Found' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method Not Allowed' },
  CONFLICT: { status: 409, title: 'Conflict' },
  PRECONDITION_FAILED: { status: 412, title: 'Precondition Failed' },
  UNPROCESSABLE_CONTENT: { status: 422, title: 'Unprocessable Content' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Content Too Large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported Media Type' },
  RATE_LIMITED: { status: 429, title: 'Too Many Requests' },
  // Refused by Node's HTTP parser, before any route (src/http/client-errors.ts).
  REQUEST_TIMEOUT: { status: 408, title: 'Request Timeout' },
  REQUEST_HEADER_FIELDS_TOO_LARGE: { status: 431, title: 'Request Header Fields Too Large' },
  INTERNAL_SERVER_ERROR: { status: 500, title: 'Internal Server Error' },
  // The database's disk is full: the write was not stored (nothing of it is kept).
  INSUFFICIENT_STORAGE: { status: 507, title: 'Insufficient Storage' },
  SERVICE_UNAVAILABLE: { status: 503, title: 'Service Unavailable' },
  // Apollo Server's own request codes (kept, as GraphQL clients know them): the document itself was refused.
  GRAPHQL_PARSE_FAILED: { status: 400, title: 'Bad Request' },
  GRAPHQL_VALIDATION_FAILED: { status: 400, title: 'Bad Request' },
  BAD_REQUEST: { status: 400, title: 'Bad Request' },
  OPERATION_RESOLUTION_FAILURE: { status: 400, title: 'Bad Request' },
  PERSISTED_QUERY_NOT_FOUND: { status: 400, title: 'Bad Request' },
  PERSISTED_QUERY_NOT_SUPPORTED: { status: 400, title: 'Bad Request' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

/** One failing input field: which field, which rule, in words. */
export interface FieldError {
  field: string;
  rule: string;
  message: string;
}

export interface AppErrorOptions {
  /** Validation failures, one per field and rule. */
  errors?: FieldError[];
  /** Response headers the error implies (WWW-Authenticate, Retry-After). */
  headers?: Record<string, string>;
  cause?: unknown;
  /** The call is refused but its change stands (an undo that could not be written): its event is committed all the same. */
  changeStands?: boolean;
}

export class AppError extends GraphQLError {
  readonly code: ErrorCode;
  readonly status: number;
  readonly fieldErrors?: FieldError[];
  readonly headers: Record<string, string>;
  readonly changeStands: boolean;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    const { status } = errorCatalogue[code];
    const headers = options.headers ?? {};
    super(message, {
      originalError: options.cause instanceof Error ? options.cause : undefined,
      extensions: {
        code,
        http: { status, headers },
        ...(options.errors ? { errors: options.errors } : {}),
      },
    });
    this.name = 'AppError';
    this.code = code;
    this.status = status;
    this.fieldErrors = options.errors;
    this.headers = headers;
    this.changeStands = options.changeStands === true;
  }
}

/** The Retry-After of a request refused while the database is away (the driver's heartbeat is 1 s: database.ts). */
export const DATABASE_RETRY_AFTER_SECONDS = 1;

function unavailable(retryAfterSeconds: number, message: string): AppError {
  return new AppError('SERVICE_UNAVAILABLE', message, { headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) } });
}

/** Small named constructors so call sites read as the refusal they are. */
export const errors = {
  badInput: (message: string, fieldErrors?: FieldError[]) =>
    new AppError('BAD_USER_INPUT', message, { errors: fieldErrors }),
  invalidField: (field: string, rule: string, message: string) =>
    new AppError('BAD_USER_INPUT', message, { errors: [{ field, rule, message }] }),
  /** One refusal naming every failing field, each field and rule once. */
  invalidFields: (fieldErrors: readonly FieldError[]) => {
    const seen = new Set<string>();
    const unique = fieldErrors.filter((e) => {
      const key = `${e.field}\u0000${e.rule}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    // A field sent that the operation does not have is unknown, not an invalid value.
    const unknown = [...new Set(unique.filter((e) => e.rule === 'unknown').map((e) => e.field))];
    const invalid = [...new Set(unique.filter((e) => e.rule !== 'unknown').map((e) => e.field))];
    const unknownPart = `Unknown field${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`;
    const invalidList = invalid.join(', ');
    const message = unknown.length === 0 ? `Invalid value for ${invalidList}` : invalid.length === 0 ? unknownPart : `${unknownPart}; invalid value for ${invalidList}`;
    return new AppError('BAD_USER_INPUT', message, { errors: unique });
  },
  unauthenticated: (message = 'Authentication required') =>
    new AppError('UNAUTHENTICATED', message, { headers: { 'WWW-Authenticate': 'Bearer' } }),
  forbidden: (message: string) => new AppError('FORBIDDEN', message),
  /** A refusal of what some fields ask for (not of their format): 403 naming each field and rule. */
  forbiddenFields: (message: string, fieldErrors: FieldError[]) => new AppError('FORBIDDEN', message, { errors: fieldErrors }),
  notFound: (what: string, id?: string) =>
    new AppError('NOT_FOUND', id ? `${what} '${id}' was not found` : `${what} was not found`),
  /** A REST path that exists, called with a method it does not take; `Allow` lists those it does. */
  methodNotAllowed: (method: string, allowed: readonly string[]) =>
    new AppError('METHOD_NOT_ALLOWED', `${method} is not allowed on this path; it takes ${allowed.join(', ')}`, {
      headers: { Allow: allowed.join(', ') },
    }),
  /** A stale `If-Match`: the record changed since the client read it (http/use-conditional-requests.ts); nothing was changed. */
  preconditionFailed: () =>
    new AppError('PRECONDITION_FAILED', 'The record changed since it was read (If-Match does not match its ETag); nothing was changed', {
      errors: [{ field: 'If-Match', rule: 'matchesETag', message: "The ETag sent is not the record's current one" }],
    }),
  /** An Idempotency-Key already used with another request (http/use-idempotency-key.ts). */
  idempotencyKeyReused: () =>
    new AppError('UNPROCESSABLE_CONTENT', 'This Idempotency-Key was used with another request within 24 hours; use a new key', {
      errors: [{ field: 'Idempotency-Key', rule: 'sameRequest', message: 'The key was used with another body' }],
    }),
  /** The first request of an Idempotency-Key is still being handled. */
  idempotencyKeyInProgress: () =>
    new AppError('CONFLICT', 'A request with this Idempotency-Key is still being handled; retry shortly', {
      errors: [{ field: 'Idempotency-Key', rule: 'inProgress', message: 'The first request with this key has not finished' }],
    }),
  conflict: (field: string, message: string) =>
    new AppError('CONFLICT', message, { errors: [{ field, rule: 'unique', message }] }),
  payloadTooLarge: (limit: string) =>
    new AppError('PAYLOAD_TOO_LARGE', `Request body is larger than the limit of ${limit}`),
  /** A request body of another type than the one expected (e.g. text/plain where JSON is read). */
  unsupportedMediaType: (expected: string, received: string | undefined) =>
    new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `The request body must be sent as ${expected} (Content-Type: ${expected}), not ${received ? received : 'without a Content-Type'}`,
    ),
  unsupportedCharset: (charset: string) =>
    new AppError('UNSUPPORTED_MEDIA_TYPE', `The request body must be JSON in UTF-8 (Content-Type: application/json; charset=utf-8), not in ${charset}`),
  /** A GraphQL document refused before it runs (too deep, too many aliases, too costly, a field repeated). */
  documentRefused: (message: string) => new AppError('GRAPHQL_VALIDATION_FAILED', message),
  /** A JSON array of GraphQL operations in one request: refused, so one request is one operation to limit and log. */
  batchRefused: () =>
    new AppError('BAD_REQUEST', 'Batched requests are not accepted: send one GraphQL operation per request (a JSON object, not an array)'),
  /** A GraphQL document that does not parse, or has more tokens than the limit. */
  documentUnparsable: (message: string) => new AppError('GRAPHQL_PARSE_FAILED', message),
  /** A request line plus headers over Node's limit (--max-http-header-size, 16 KiB by default). */
  headersTooLarge: (limitBytes: number) =>
    new AppError('REQUEST_HEADER_FIELDS_TOO_LARGE', `The request line and headers are larger than the limit of ${limitBytes} bytes`),
  /** Chunk extensions (the `;name=value` after a chunk's size) over Node's limit. */
  chunkExtensionsTooLarge: () => new AppError('PAYLOAD_TOO_LARGE', 'The chunk extensions of the request body are larger than the limit'),
  /** Bytes Node's HTTP parser cannot read as a request (a bad request line, header or chunk). */
  malformedRequest: () => new AppError('BAD_REQUEST', 'The request is not well-formed HTTP/1.1'),
  /** A request whose headers or body did not arrive within the server's time limit. */
  requestTimeout: () => new AppError('REQUEST_TIMEOUT', 'The request did not arrive in time'),
  /** The database refused a write for lack of disk space (MongoDB's OutOfDiskSpace, 14031). */
  insufficientStorage: (cause: unknown) =>
    new AppError('INSUFFICIENT_STORAGE', "The database's disk is full: the change was not stored", { cause }),
  /** A read past its time limit (MongoDB's maxTimeMS): nothing was answered, a narrower filter may be. */
  readTimeLimit: () =>
    unavailable(5, 'This list read more records than it may in its time limit: narrow the filter (e.g. a longer search word) or try again later'),
  rateLimited: (retryAfterSeconds: number, message = 'Rate limit exceeded', headers: Record<string, string> = {}) =>
    new AppError('RATE_LIMITED', message, {
      headers: { ...headers, 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    }),
  /** Work the service sheds to stay responsive (a full queue, the database away): try again after Retry-After. */
  unavailable: (retryAfterSeconds: number, message: string) => unavailable(retryAfterSeconds, message),
  /** The database does not answer (what /readyz reports): the driver looks again every second. */
  databaseAway: () => unavailable(DATABASE_RETRY_AFTER_SECONDS, 'The database is not reachable; try again shortly'),
};

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(errorCatalogue, value);
}

/** A masked unexpected failure; the original stays as `cause` (originalError) for the log. */
export function internalError(cause: unknown): AppError {
  return new AppError('INTERNAL_SERVER_ERROR', 'Internal server error', { cause });
}

/** True when the error is a masked unexpected failure (its cause is logged, never shown). */
export function isUnexpected(error: AppError): boolean {
  return error.code === 'INTERNAL_SERVER_ERROR';
}
