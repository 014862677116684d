/** Helpers every area shares: ids, pagination, calendar days, the credential rules. */
export { IdArgs, ObjectIdField, isObjectIdString, toObjectId, type ObjectIdFieldOptions } from './object-id.js';
export {
  CURSOR_PATTERN,
  DEFAULT_PAGE_LIMIT,
  MAX_PAGE_LIMIT,
  PageArgs,
  Paginated,
  IsPageCursor,
  decodeCursor,
  encodeCursor,
  findPage,
  type FindPageOptions,
  type Page,
  type PageOrder,
  type PageableModel,
} from './pagination.js';
export { AnswerBudget, DEFAULT_PAGE_BYTE_BUDGET, currentAnswerBudget, withAnswerBudget } from './answer-budget.js';
export { CALENDAR_DATE_PATTERN, IS_CALENDAR_DATE, IsCalendarDate, isCalendarDate } from './calendar-date.js';
export { EMAIL_COLLATION, EMAIL_MAX_LENGTH, emailComparisonKey, HasNoIgnoredCharacter, ignoredEmailCharacter, IsAcceptablePassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, PASSWORD_RULE, isAcceptablePassword, isEmailAddress } from './credential-rules.js';
export { databaseReadOnlyReason, markDatabaseReadOnly } from './database-state.js';
