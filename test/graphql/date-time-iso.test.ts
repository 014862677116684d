import fc from 'fast-check';
import { GraphQLDateTimeISO } from 'graphql-scalars';
import { describe, expect, it } from 'vitest';
import { DateTimeISO, isoString } from '../../src/graphql/scalars.js';

/** The served DateTimeISO must answer exactly what graphql-scalars' own answers (toISOString). */

const END_OF_YEAR_9999 = Date.UTC(10000, 0, 1);
const answerOf = (scalar: typeof DateTimeISO, value: unknown) => {
  try {
    return { value: scalar.serialize(value) };
  } catch (err) {
    return { error: (err as Error).message };
  }
};

describe('DateTimeISO', () => {
  it('writes any time from 1970 to year 9999 as toISOString does', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: END_OF_YEAR_9999 - 1 }), (time) => {
        expect(isoString(time)).toBe(new Date(time).toISOString());
      }),
      { numRuns: 20000 },
    );
  });

  it.each([
    ['the epoch', 0],
    ['a leap day', Date.UTC(2024, 1, 29, 23, 59, 59, 999)],
    ['the day after a century without a leap day', Date.UTC(2100, 2, 1)],
    ['the leap day of a 400th year', Date.UTC(2000, 1, 29, 12)],
    ['the last millisecond of year 9999', END_OF_YEAR_9999 - 1],
  ])('writes %s as toISOString does', (_what, time) => {
    expect(isoString(time)).toBe(new Date(time).toISOString());
  });

  it.each([
    ['a Date of 1970 or later', new Date('2026-03-03T12:00:00.5Z')],
    ['a Date before 1970', new Date('1969-12-31T23:59:59.999Z')],
    ['a Date before year 0', new Date(Date.UTC(-5, 0, 1))],
    ['a Date after year 9999', new Date(END_OF_YEAR_9999)],
    ['an invalid Date', new Date(Number.NaN)],
    ['a date-time string', '2026-03-03T12:00:00+02:00'],
    ['a malformed string', 'yesterday'],
    ['a number', 1700000000000],
    ['an object', { at: 1 }],
  ])('answers %s as graphql-scalars does', (_what, value) => {
    expect(answerOf(DateTimeISO, value)).toEqual(answerOf(GraphQLDateTimeISO, value));
  });

  it('keeps the name, description and parsing of graphql-scalars', () => {
    const { serialize: _ours, ...ours } = DateTimeISO.toConfig();
    const { serialize: _theirs, ...theirs } = GraphQLDateTimeISO.toConfig();
    expect(ours).toEqual(theirs);
  });
});
