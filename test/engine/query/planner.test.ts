import { describe, expect, it } from 'vitest';
import type { IndexSpec } from '../../../src/engine/model/index.js';
import { planQuery } from '../../../src/engine/query/index.js';

const indexes: IndexSpec[] = [
  { name: '_id_', key: { _id: 1 } },
  { name: 'email_1', key: { email: 1 }, unique: true },
  { name: 'age_1', key: { age: 1 } },
  { name: 'nick_1', key: { nick: 1 }, sparse: true },
  { name: 'name_1', key: { name: 1 }, collation: { locale: 'en', strength: 2 } },
];

describe('planQuery', () => {
  it.each([
    ['_id equality', { _id: 5 }, { index: '_id_', equals: [5] }],
    ['_id preferred over unique', { email: 'x', _id: 5 }, { index: '_id_', equals: [5] }],
    ['unique preferred over plain', { age: 3, email: 'x' }, { index: 'email_1', equals: ['x'] }],
    ['$in gives several equals', { age: { $in: [1, 2] } }, { index: 'age_1', equals: [1, 2] }],
    ['range', { age: { $gte: 18, $lt: 65 } }, { index: 'age_1', range: { min: 18, minInclusive: true, max: 65, maxInclusive: false } }],
    ['inside $and', { $and: [{ age: 3 }] }, { index: 'age_1', equals: [3] }],
    ['no usable condition', { other: 1 }, undefined],
    ['regex not planned', { email: /x/ }, undefined],
    ['null not planned', { email: null }, undefined],
    ['sparse index skipped', { nick: 'n' }, undefined],
    ['collated index skipped without the same collation', { name: 'n' }, undefined],
  ] as Array<[string, Record<string, unknown>, unknown]>)('%s', (_n, filter, expected) => {
    expect(planQuery(filter, indexes)).toEqual(expected);
  });

  it('uses a collated index when the query collation matches', () => {
    expect(planQuery({ name: 'n' }, indexes, { locale: 'en', strength: 2 })).toEqual({ index: 'name_1', equals: ['n'] });
  });
});

describe('planQuery between otherwise equal indexes', () => {
  const compound: IndexSpec[] = [
    { name: 'tenant_1__id_1', key: { tenant: 1, _id: 1 } },
    { name: 'word_1_tenant_1', key: { word: 1, tenant: 1 } },
    { name: 'tenant_1_age_1', key: { tenant: 1, age: 1 } },
  ];

  it.each([
    ['prefers the index whose further fields the filter also fixes', { tenant: 't', word: 'w' }, { index: 'word_1_tenant_1', equals: ['w'] }],
    ['whatever the order of the conditions', { word: 'w', tenant: 't' }, { index: 'word_1_tenant_1', equals: ['w'] }],
    ['a further range fixes nothing: the first listed stays', { tenant: 't', age: { $gt: 1 } }, { index: 'tenant_1__id_1', equals: ['t'] }],
    ['never over an equality on a first field', { tenant: { $gt: 't' }, word: 'w', age: 1 }, { index: 'word_1_tenant_1', equals: ['w'] }],
  ] as Array<[string, Record<string, unknown>, unknown]>)('%s', (_n, filter, expected) => {
    expect(planQuery(filter, compound)).toEqual(expected);
  });
});
