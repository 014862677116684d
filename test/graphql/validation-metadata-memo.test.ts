import { IsInt, Max, Min, validate } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { memoizeValidationMetadata } from '../../src/graphql/validation-metadata-memo.js';

memoizeValidationMetadata();

const failedRules = async (value: object) => (await validate(value)).flatMap((error) => Object.keys(error.constraints ?? {})).sort();

describe('class-validator with its rule lookup memoized', () => {
  it('applies a class rules on every call, not only the first', async () => {
    class Portions {
      @IsInt()
      @Min(0)
      portions!: number;
    }
    const bad = Object.assign(new Portions(), { portions: -1.5 });
    const good = Object.assign(new Portions(), { portions: 3 });
    expect([await failedRules(bad), await failedRules(good), await failedRules(bad)]).toEqual([['isInt', 'min'], [], ['isInt', 'min']]);
  });

  it('sees a rule added to a class after it was validated (adding a rule forgets what was kept)', async () => {
    class Counted {
      @Min(0)
      n!: number;
    }
    const value = Object.assign(new Counted(), { n: 500 });
    const before = await failedRules(value);
    Max(100)(Counted.prototype, 'n');
    expect([before, await failedRules(value)]).toEqual([[], ['max']]);
  });

  it('gives a subclass its own and its parent rules', async () => {
    class Base {
      @Min(0)
      n!: number;
    }
    expect(await failedRules(Object.assign(new Base(), { n: -1 }))).toEqual(['min']);
    class Capped extends Base {
      @Max(100)
      m!: number;
    }
    expect(await failedRules(Object.assign(new Capped(), { n: -1, m: 500 }))).toEqual(['max', 'min']);
  });

  it('keeps groups apart: a rule of a group applies only when that group is asked for', async () => {
    class Grouped {
      @Min(10, { groups: ['strict'] })
      n!: number;
    }
    const value = Object.assign(new Grouped(), { n: 1 });
    const rules = async (groups?: string[]) => (await validate(value, { groups, forbidUnknownValues: false })).flatMap((e) => Object.keys(e.constraints ?? {}));
    expect([await rules(['strict']), await rules(['loose']), await rules(['strict'])]).toEqual([['min'], [], ['min']]);
  });
});
