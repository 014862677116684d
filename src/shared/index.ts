/** Helpers every area shares: ids, tenancy, pagination, calendar days. */
export { IdArgs, ObjectIdField, isObjectIdString, toObjectId, type ObjectIdFieldOptions } from './object-id.js';
export {
  DEFAULT_PAGE_LIMIT,
  MAX_PAGE_LIMIT,
  PageArgs,
  Paginated,
  IsPageCursor,
  decodeCursor,
  encodeCursor,
  findPage,
  type Page,
  type PageableModel,
} from './pagination.js';
export { TENANT_FIELD, isInActorTenant, tenantForCreate, tenantScope, type TenantFilter } from './tenant-scope.js';
export { CALENDAR_DATE_PATTERN, IS_CALENDAR_DATE, IsCalendarDate, isCalendarDate } from './calendar-date.js';
