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
  UnsupportedFormat: 12,
  TypeMismatch: 14,
  Overflow: 15,
  InvalidLength: 16,
  InvalidPath: 30,
  Unauthorized: 13,
  IllegalOperation: 20,
  IndexNotFound: 27,
  PathNotViable: 28,
  CannotBackfillArray: 34,
  ConflictingUpdateOperators: 40,
  CursorNotFound: 43,
  MaxTimeMSExpired: 50,
  /** An operation the engine's shutdown ended (a write held by fsyncLock when the engine closes). */
  InterruptedAtShutdown: 11600,
  NamespaceExists: 48,
  CommandNotFound: 59,
  CommandNotSupported: 115,
  CommandNotSupportedOnView: 166,
  OptionNotSupportedOnView: 167,
  IDLUnknownField: 40415,
  GraphContainsCycle: 93,
  ViewDepthLimitExceeded: 149,
  InvalidIndexSpecificationOption: 197,
  ImmutableField: 66,
  InvalidOptions: 72,
  InvalidNamespace: 73,
  IndexOptionsConflict: 85,
  ExceededMemoryLimit: 146,
  QueryExceededMemoryLimitNoDiskUseAllowed: 292,
  IndexKeySpecsConflict: 86,
  NamespaceNotFound: 26,
  CappedPositionLost: 136,
  CannotConvertIndexToUnique: 359,
  NoReplicationEnabled: 76,
  CannotCreateIndex: 67,
  CannotIndexParallelArrays: 171,
  InvalidIdField: 53,
  DollarPrefixedFieldName: 52,
  EmptyFieldName: 56,
  DocumentValidationFailure: 121,
  NoSuchTransaction: 251,
  OperationNotSupportedInTransaction: 263,
  Location10334: 10334,
  Location17419: 17419,
  Location31393: 31393,
  Location51276: 51276,
  Location17420: 17420,
  Location16020: 16020,
  DuplicateKey: 11000,
  /** A write the storage could not put on disk for lack of space (the engine then takes no more writes). */
  OutOfDiskSpace: 14031,
  Location15974: 15974,
  Location15975: 15975,
  Location15976: 15976,
  Location17312: 17312,
  Location31254: 31254,
  Location31249: 31249,
  Location31250: 31250,
  Location51270: 51270,
  InvalidPipelineOperator: 168,
  Location40352: 40352,
  Location40353: 40353,
  Location51024: 51024,
  Location51091: 51091,
  Location51108: 51108,
  Location31002: 31002,
  Location28650: 28650,
  Location15959: 15959,
  Location15973: 15973,
  Location15958: 15958,
  Location51272: 51272,
  Location40272: 40272,
  Location40156: 40156,
  Location40231: 40231,
  Location40323: 40323,
  Location40234: 40234,
  Location15952: 15952,
  Location40228: 40228,
  Location40400: 40400,
  Location15955: 15955,
  Location31253: 31253,
  MergeStageNoMatchingDocument: 13113,
  Location51183: 51183,
  Location40601: 40601,
  /** IDL: a required field is missing. */
  Location40414: 40414,
  Location40324: 40324,
  // clusteredIndex options of create (commands/clustered-index.ts)
  Location5979700: 5979700,
  Location5979703: 5979703,
  Location5979704: 5979704,
  Location5979800: 5979800,
  Location6026500: 6026500,
  Location6026501: 6026501,
  APIStrictError: 323,
  APIVersionError: 322,
  Location4886600: 4886600,
  /** $indexStats takes an empty document. */
  Location28803: 28803,
  /** Server-side JavaScript on a server without it (security.javascriptEnabled: false): $where, */
  Location6108304: 6108304,
  /** $function and $accumulator, */
  Location31264: 31264,
  /** and mapReduce's emit. */
  Location31246: 31246,
  /** Geospatial (query/geo): $near siblings, near placement, geo keys, 2d specs, $geoNear. */
  NoQueryExecutionPlans: 291,
  Location16893: 16893,
  Location16894: 16894,
  Location16895: 16895,
  Location16896: 16896,
  Location34413: 34413,
  Location5626500: 5626500,
  Location16755: 16755,
  Location16764: 16764,
  Location16766: 16766,
  Location31303: 31303,
  Location51271: 51271,
  Location7246200: 7246200,
  Location7246201: 7246201,
  Location7246204: 7246204,
  Location16800: 16800,
  Location16801: 16801,
  Location16804: 16804,
  Location13026: 13026,
  Location13027: 13027,
  Location13068: 13068,
  Location40602: 40602,
  Location5860400: 5860400,
  Location5860401: 5860401,
  Location16606: 16606,
  Location16607: 16607,
  Location40227: 40227,
  Location50858: 50858,
  Location50857: 50857,
  // Text search: no plan can answer the $text (e.g. under $or), a textScore without $text,
  // a bad language override in a document, $text in a later $match, an unknown $meta.
  Location40218: 40218,
  Location17261: 17261,
  Location17262: 17262,
  Location17313: 17313,
  Location17308: 17308,
  // Aggregation stages and accumulators checked against mongod 7.0 (query/pipeline/more-stages.ts, accumulators-n.ts, granularity.ts).
  Location15998: 15998,
  Location16410: 16410,
  Location17053: 17053,
  Location28745: 28745,
  Location28746: 28746,
  Location28747: 28747,
  Location28748: 28748,
  Location28749: 28749,
  Location31441: 31441,
  Location40066: 40066,
  Location51132: 51132,
  Location40100: 40100,
  Location40101: 40101,
  Location40102: 40102,
  Location40103: 40103,
  Location40104: 40104,
  Location40105: 40105,
  Location40147: 40147,
  Location40148: 40148,
  Location40149: 40149,
  Location40185: 40185,
  Location40191: 40191,
  Location40192: 40192,
  Location40193: 40193,
  Location40194: 40194,
  Location40195: 40195,
  Location40196: 40196,
  Location40197: 40197,
  Location40198: 40198,
  Location40199: 40199,
  Location40200: 40200,
  Location40201: 40201,
  Location40202: 40202,
  Location40239: 40239,
  Location40240: 40240,
  Location40241: 40241,
  Location40242: 40242,
  Location40243: 40243,
  Location40244: 40244,
  Location40245: 40245,
  Location40246: 40246,
  Location40257: 40257,
  Location40258: 40258,
  Location40259: 40259,
  Location40260: 40260,
  Location40261: 40261,
  Location40262: 40262,
  Location40263: 40263,
  Location40268: 40268,
  Location40327: 40327,
  Location5787801: 5787801,
  Location5787900: 5787900,
  Location5787901: 5787901,
  Location5787902: 5787902,
  Location5787903: 5787903,
  Location5787906: 5787906,
  Location5787907: 5787907,
  Location5787908: 5787908,
  Location5788001: 5788001,
  Location5788002: 5788002,
  Location5788003: 5788003,
  Location5788004: 5788004,
  Location5788005: 5788005,
  // $regexMatch / $regexFind / $regexFindAll arguments (query/regex-expressions.ts)
  Location31022: 31022,
  Location31023: 31023,
  Location31024: 31024,
  Location51075: 51075,
  Location51103: 51103,
  Location51104: 51104,
  Location51105: 51105,
  Location51106: 51106,
  Location51109: 51109,
  Location51110: 51110,
  Location51111: 51111,
  Location51156: 51156,
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

/**
 * A document over the 16 MiB a stored document may have (storage's refusal). The
 * write that made it words it as mongod does: an insert, an update's result, an upsert.
 */
export class DocumentTooLargeError extends MongoCommandError {
  /** mongod's own limit of any BSON it builds: 16 MiB and 16 KiB of headroom (a larger one is this error as it stands). */
  static readonly INTERNAL_LIMIT = 16 * 1024 * 1024 + 16 * 1024;

  constructor(readonly size: number, readonly limit: number) {
    super('Location10334', `BSONObj size: ${size} (0x${size.toString(16).toUpperCase()}) is invalid. Size must be between 0 and ${DocumentTooLargeError.INTERNAL_LIMIT}(16MB)`);
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
