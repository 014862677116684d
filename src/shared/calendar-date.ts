import { ValidateBy, type ValidationOptions } from 'class-validator';

/**
 * A calendar day is a `YYYY-MM-DD` string (no time, no zone): a restaurant's
 * service day is the same day wherever the client sits, and the string sorts
 * and compares exactly. It must also exist in the calendar (no 2026-02-30).
 */
export const CALENDAR_DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const match = CALENDAR_DATE_PATTERN.exec(value);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  // setUTCFullYear rolls 2026-02-30 over to March (a real day survives the round trip), and,
  // unlike Date.UTC, takes years 0000 to 0099 as written rather than as 1900 to 1999.
  const probe = new Date(0);
  probe.setUTCFullYear(year, month - 1, day);
  return probe.getUTCFullYear() === year && probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day;
}

export const IS_CALENDAR_DATE = 'isCalendarDate';

/** class-validator rule `isCalendarDate`: a real day written `YYYY-MM-DD`. */
export function IsCalendarDate(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: IS_CALENDAR_DATE,
      validator: {
        validate: (value) => isCalendarDate(value),
        defaultMessage: () => '$property must be a calendar day written YYYY-MM-DD',
      },
    },
    options,
  );
}

/**
 * The calendar day of an instant, in UTC: how a day stored as a BSON date by
 * another system (an import) is answered, rather than as the milliseconds a
 * String field would make of it. Undefined when no YYYY-MM-DD can say it.
 */
export function calendarDayOf(instant: Date): string | undefined {
  const year = instant.getUTCFullYear();
  // YYYY holds years 0000 to 9999 (toISOString writes others as +010000 or -000001); none for an invalid date.
  if (!(year >= 0 && year <= 9999)) return undefined;
  return instant.toISOString().slice(0, 10);
}
