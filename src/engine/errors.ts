/**
 * The engine's one error family. Every failure a client can see is a
 * `MongoCommandError` carrying mongod's numeric code and codeName; the command
 * layer renders it as `{ok: 0, errmsg, code, codeName, ...extra}` (or as a
 * `writeErrors` entry). Storage and query code throw these directly through
 * the helpers below so the code table lives in one place.
 */
export const ErrorCodes = {
  InternalError: 1,
  BadValue: 2,
  NoSuchKey: 4,
  FailedToParse: 9,
  TypeMismatch: 14,
  IllegalOperation: 20,
  IndexNotFound: 27,
  PathNotViable: 28,
  ConflictingUpdateOperators: 40,
  CursorNotFound: 43,
  NamespaceExists: 48,
  CommandNotFound: 59,
  ImmutableField: 66,
  InvalidOptions: 72,
  InvalidNamespace: 73,
  IndexOptionsConflict: 85,
  IndexKeySpecsConflict: 86,
  NamespaceNotFound: 26,
  CannotCreateIndex: 67,
  InvalidIdField: 53,
  DollarPrefixedFieldName: 52,
  EmptyFieldName: 56,
  DocumentValidationFailure: 121,
  NoSuchTransaction: 251,
  OperationNotSupportedInTransaction: 263,
  Location10334: 10334,
  DuplicateKey: 11000,
  Location15974: 15974,
  Location31254: 31254,
  InvalidPipelineOperator: 168,
  Location40352: 40352,
  Location40353: 40353,
  Location51024: 51024,
} as const;

export type ErrorCodeName = keyof typeof ErrorCodes;

export class MongoCommandError extends Error {
  readonly code: number;
  readonly codeName: string;
  /** Extra reply fields (keyPattern/keyValue for 11000, ...). */
  readonly extra: Record<string, unknown>;

  constructor(codeName: ErrorCodeName, message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.name = 'MongoCommandError';
    this.code = ErrorCodes[codeName];
    this.codeName = codeName;
    this.extra = extra;
  }

  toReply(): Record<string, unknown> {
    return { ok: 0, errmsg: this.message, code: this.code, codeName: this.codeName, ...this.extra };
  }
}

export function mongoError(
  codeName: ErrorCodeName,
  message: string,
  extra?: Record<string, unknown>,
): MongoCommandError {
  return new MongoCommandError(codeName, message, extra);
}

export function isMongoCommandError(err: unknown): err is MongoCommandError {
  return err instanceof MongoCommandError;
}
