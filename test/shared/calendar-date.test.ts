import { describe, expect, it } from 'vitest';
import { isCalendarDate } from '../../src/shared/calendar-date.js';

describe('a calendar day', () => {
  it.each(['2026-03-01', '2024-02-29', '1999-12-31'])('accepts %s', (day) => {
    expect(isCalendarDate(day)).toBe(true);
  });

  it.each([
    ['a day that does not exist', '2026-02-30'],
    ['February 29 of a common year', '2025-02-29'],
    ['month 13', '2026-13-01'],
    ['a date-time', '2026-03-01T00:00:00Z'],
    ['an unpadded day', '2026-3-1'],
    ['a number', 20260301],
  ])('refuses %s', (_why, value) => {
    expect(isCalendarDate(value)).toBe(false);
  });
});
