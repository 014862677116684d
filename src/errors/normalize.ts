import type { ValidationError } from 'class-validator';
import { GraphQLError } from 'graphql';
import mongoose from 'mongoose';
import { ArgumentValidationError } from 'type-graphql';
import { AppError, errorCatalogue, errors, internalError, isErrorCode, type ErrorCode, type FieldError } from './catalogue.js';

/**
 * Turns anything thrown while serving a request into the AppError both
 * surfaces render: our own errors pass through, known library errors
 * (class-validator, mongoose, graphql-js, Apollo's request codes) get their
 * code and status here, once; the rest become a masked 500 that keeps the
 * original as `cause` for the log. Pure: it logs nothing (see report.ts).
 */
export function normalizeError(thrown: unknown): AppError {
  const chain = causeChain(thrown);
  for (const error of chain) {
    if (error instanceof AppError) return error;
    // A validator that threw (not refused) leaves no list of results: the server's fault, not the caller's.
    if (error instanceof ArgumentValidationError) {
      const results: unknown = error.extensions.validationErrors;
      return Array.isArray(results) ? fromValidation(results) : internalError(error);
    }
    if (isDatabaseAway(error)) return errors.databaseAway();
    const fromDatabase = fromMongoose(error);
    if (fromDatabase) return fromDatabase;
  }
  // Only GraphQLErrors all the way down: graphql-js refused the request itself
  // (the outermost message is the complete one, e.g. 'Variable "$x" got invalid value'),
  // unless it failed on the way out (a stored value the schema cannot represent).
  if (chain.at(-1) instanceof GraphQLError && !isOutputFailure(chain)) return fromGraphQL(chain[0] as GraphQLError);
  return internalError(chain.at(-1));
}

/**
 * During execution (the error has a `path`) graphql-js blames the client only
 * for argument values ('Argument "x" ...'); anything else it raises there is
 * the answer failing to serialize (e.g. a legacy record's value outside an
 * enum): the server's fault, a masked 500, not the caller's 400.
 */
function isOutputFailure(chain: readonly unknown[]): boolean {
  const outer = chain[0] as GraphQLError;
  const inner = chain.at(-1) as GraphQLError;
  return outer.path !== undefined && !inner.message.startsWith('Argument "');
}

/** A GraphQLError wraps what was really thrown (`originalError`): the error, then what it wraps, and so on. */
function causeChain(thrown: unknown): unknown[] {
  const chain = [thrown];
  let current = thrown;
  while (current instanceof GraphQLError && !(current instanceof AppError) && current.originalError) {
    current = current.originalError;
    chain.push(current);
  }
  return chain;
}

/** class-validator results, nested objects flattened to dotted field paths. */
export function validationFieldErrors(results: readonly ValidationError[], prefix = ''): FieldError[] {
  return results.flatMap((result) => {
    const field = prefix ? `${prefix}.${result.property}` : result.property;
    const own = Object.entries(result.constraints ?? {}).map(([rule, message]) => ({ field, rule, message }));
    return [...own, ...validationFieldErrors(result.children ?? [], field)];
  });
}

function fromValidation(results: readonly ValidationError[]): AppError {
  return errors.invalidFields(validationFieldErrors(results));
}

function fromMongoose(error: unknown): AppError | undefined {
  if (error instanceof mongoose.Error.CastError) {
    return errors.invalidField(error.path, 'type', `${error.path} has an invalid value`);
  }
  if (error instanceof mongoose.Error.ValidationError) {
    const fieldErrors = Object.values(error.errors).map((e) => ({ field: e.path, rule: e.kind, message: e.message }));
    return errors.badInput(`Invalid value for ${fieldErrors.map((e) => e.field).join(', ')}`, fieldErrors);
  }
  if (isOutOfDiskSpace(error)) return errors.insufficientStorage(error);
  if (isTimeLimitExceeded(error)) return errors.readTimeLimit();
  if (isDuplicateKey(error)) {
    const keys = Object.keys(error.keyPattern ?? error.keyValue ?? {});
    const field = keys.find((key) => key !== 'tenant_id') ?? keys[0] ?? 'id';
    return errors.conflict(field, `A record with this ${field} already exists`);
  }
  return undefined;
}

/** MongoDB's OutOfDiskSpace (14031): the embedded engine, or a mongod, could not store a write for lack of space. */
function isOutOfDiskSpace(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 14031;
}

/** MongoDB's answer to a read past its maxTimeMS (50, MaxTimeMSExpired), from any driver or engine. */
export function isTimeLimitExceeded(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 50;
}

/**
 * The database did not answer: no connection (refused, reset, closed pool),
 * no server to select, or mongoose gave up waiting to connect. Not the
 * request's fault, nor a bug to mask: 503 with Retry-After, as /readyz says.
 */
export function isDatabaseAway(error: unknown): boolean {
  const { mongo } = mongoose;
  if (error instanceof mongo.MongoNetworkError || error instanceof mongo.MongoServerSelectionError) return true;
  if (error instanceof mongo.MongoNotConnectedError || error instanceof mongo.MongoTopologyClosedError) return true;
  // mongoose's own: an operation buffered while disconnected that timed out.
  return error instanceof mongoose.Error && /buffering timed out/.test(error.message);
}

/** MongoDB's duplicate key error (11000), from any driver or engine. */
export function isDuplicateKey(error: unknown): error is { keyPattern?: object; keyValue?: object } {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;
}

/**
 * Errors graphql-js makes before any resolver runs (syntax, validation,
 * variable coercion) are the client's: 400, naming the variable when there is one.
 * Errors that already carry an HTTP status (SOFA's "invalid JSON") keep it.
 */
function fromGraphQL(error: GraphQLError): AppError {
  const status = (error.extensions?.http as { status?: number } | undefined)?.status;
  const extensionCode = error.extensions?.code;
  const code = isErrorCode(extensionCode) ? extensionCode : status ? codeForStatus(status) : 'BAD_USER_INPUT';
  if (code === 'INTERNAL_SERVER_ERROR') return internalError(error);
  const variable = /^Variable "\$([\w]+)"/.exec(error.message)?.[1];
  if (code === 'BAD_USER_INPUT' && variable) {
    const rule = /was not provided|must not be null/.test(error.message) ? 'required' : 'type';
    return errors.invalidField(variable, rule, error.message);
  }
  return new AppError(code, error.message, code === 'UNAUTHENTICATED' ? { headers: { 'WWW-Authenticate': 'Bearer' } } : {});
}

function codeForStatus(status: number): ErrorCode {
  const match = (Object.keys(errorCatalogue) as ErrorCode[]).find((code) => errorCatalogue[code].status === status);
  return match ?? (status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_USER_INPUT');
}
