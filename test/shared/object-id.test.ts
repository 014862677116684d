import { validate } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { IdArgs } from '../../src/shared/object-id.js';

async function idFailures(id: unknown) {
  const failures = await validate(Object.assign(new IdArgs(), { id }));
  return failures.map((f) => ({ field: f.property, rules: Object.keys(f.constraints ?? {}) }));
}

describe('an id argument', () => {
  it('accepts 24 hexadecimal characters', async () => {
    expect(await idFailures('65f0c0ffee0000000000cafe')).toEqual([]);
  });

  it.each(['not-an-id', '65f0c0ffee0000000000caf', '65f0c0ffee0000000000cafeZ', ''])(
    'refuses %j, naming the field and the rule isMongoId',
    async (id) => {
      expect(await idFailures(id)).toEqual([{ field: 'id', rules: ['isMongoId'] }]);
    },
  );
});
