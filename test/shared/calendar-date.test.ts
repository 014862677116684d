import { describe, expect, it } from 'vitest';
import { calendarDayOf, isCalendarDate } from '../../src/shared/calendar-date.js';

describe('a calendar day', () => {
  // Years below 100 as written (Date.UTC would read 0050 as 1950), year 0 a leap year as in ISO 8601.
  it.each(['2026-03-01', '2024-02-29', '1999-12-31', '0000-01-01', '0000-02-29', '0050-06-15', '0099-12-31'])('accepts %s', (day) => {
    expect(isCalendarDate(day)).toBe(true);
  });

  it.each([
    ['a day that does not exist', '2026-02-30'],
    ['February 29 of a common year', '2025-02-29'],
    ['February 29 of a century year that is no leap year', '0100-02-29'],
    ['month 13', '2026-13-01'],
    ['a date-time', '2026-03-01T00:00:00Z'],
    ['an unpadded day', '2026-3-1'],
    ['a number', 20260301],
  ])('refuses %s', (_why, value) => {
    expect(isCalendarDate(value)).toBe(false);
  });
});

describe('the calendar day of an instant (UTC)', () => {
  it.each([
    ['2030-05-01T23:59:59.999Z', '2030-05-01'],
    ['0005-01-01T00:00:00Z', '0005-01-01'],
    ['+010000-01-01T00:00:00Z', undefined],
    ['-000001-12-31T00:00:00Z', undefined],
    ['not a date', undefined],
  ])('of %s is %s', (instant, day) => {
    expect(calendarDayOf(new Date(instant))).toBe(day);
  });
});
