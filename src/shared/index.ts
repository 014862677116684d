/**
 * What every area shares, below them all: ids, pagination and list reads,
 * timestamps and calendar days, the credential rules and shapes, the field
 * rules declared once, and the database's read-only state.
 */

// Ids and fields.
export { IdArgs, IsObjectId, ObjectIdField, isObjectIdString, toObjectId, type ObjectIdFieldOptions } from './object-id.js';
export { CreatedAtField, UpdatedAtField, createdBetween } from './timestamps.js';
export { CALENDAR_DATE_PATTERN, IS_CALENDAR_DATE, IsCalendarDate, calendarDayOf, isCalendarDate } from './calendar-date.js';
export { IsIntegerIn, VALUE_RULE_EXTENSION } from './integer-rule.js';
export { pathValidator, recordValidator } from './path-validator.js';
export { nestsDeeperThan } from './json-depth.js';
export { declaredField, type DeclaredField, type Presence } from './declared-field.js';

// Lists: pages, cursors, the byte budget of an answer, the read time limit.
export {
  CURSOR_PATTERN,
  DEFAULT_PAGE_LIMIT,
  MAX_PAGE_LIMIT,
  PAGE_ITEMS_EXTENSION,
  PageArgs,
  Paginated,
  IsPageCursor,
  collectionPages,
  countRecords,
  decodeCursor,
  encodeCursor,
  findPage,
  lazyTotal,
  listReadTimeLimit,
  setListReadTimeLimit,
  type FindPageOptions,
  type Page,
  type PageOrder,
  type PageableModel,
} from './pagination.js';
export { AnsweredOverRestWhen, REST_SWITCH_EXTENSION } from './rest-switch.js';
export { AnswerBudget, DEFAULT_PAGE_BYTE_BUDGET, currentAnswerBudget, withAnswerBudget } from './answer-budget.js';
export { leanDefaults } from './lean-defaults.js';
export { decodeDocument } from './bson-documents.js';
export { GroupWrite } from './group-write.js';
export { createShortLivedCache } from './short-lived-cache.js';

// Credentials: the email and password rules, the shape of an API key secret (and its redaction).
export {
  EMAIL_COLLATION,
  EMAIL_MAX_LENGTH,
  HasNoIgnoredCharacter,
  IsAcceptablePassword,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  PASSWORD_RULE,
  emailComparisonKey,
  ignoredEmailCharacter,
  isAcceptablePassword,
  isEmailAddress,
} from './credential-rules.js';
export {
  API_KEY_CHECKSUM_LENGTH,
  API_KEY_ID_LENGTH,
  API_KEY_PREFIX,
  API_KEY_SECRET_LENGTH,
  PASSWORD_TICKET_PREFIX,
  holdsCredentialShape,
  pathWithoutCredentials,
  redactCredentialShapes,
  REFRESH_TOKEN_PREFIX,
  unescapeUnreserved,
  WEBHOOK_SECRET_PREFIX,
} from './credential-shapes.js';
export { hashOpaqueSecret, newOpaqueSecret, type OpaqueSecret } from './opaque-secret.js';

// The database's state as the service last saw it.
export { databaseReadOnlyReason, markDatabaseReadOnly } from './database-state.js';
export { assertVersion, orStale, storedVersion, versionCondition, withWritePrecondition } from './write-precondition.js';

// Tracing: the spans of a request (the SDK is loaded only when tracing is on).
export { endFailed, inChildSpan, REQUEST_ID_ATTRIBUTE, startRequestSpan, tracingOn, SpanKind, SpanStatusCode, traceContext, type RequestTrace, type Span } from './tracing.js';
export { startTracing, type RunningTracing, type TracingSettings } from './tracing-sdk.js';
export { traceDatabaseCommands } from './traced-commands.js';
