import { describe, expect, it } from 'vitest';
import { buildServiceSchema } from '../../src/service.js';
import { restRoutes } from '../../src/service.js';

/** Every operation has an explicit, unique REST route; SOFA's defaults are never relied on. */

const schema = await buildServiceSchema();
const operations = [
  ...Object.keys(schema.getQueryType()?.getFields() ?? {}).map((name) => `Query.${name}`),
  ...Object.keys(schema.getMutationType()?.getFields() ?? {}).map((name) => `Mutation.${name}`),
];

describe('the REST route table', () => {
  it('has a route for every GraphQL query and mutation', () => {
    expect(operations.filter((operation) => !(operation in restRoutes))).toEqual([]);
  });

  it('names only operations that exist', () => {
    expect(Object.keys(restRoutes).filter((key) => !operations.includes(key))).toEqual([]);
  });

  it('gives each route a method and a path', () => {
    expect(Object.entries(restRoutes).filter(([, route]) => !route.method || !route.path).map(([key]) => key)).toEqual([]);
  });

  it('never gives two operations the same method and path', () => {
    const seen = Object.values(restRoutes).map((route) => `${route.method} ${route.path}`);
    expect(seen.filter((route, index) => seen.indexOf(route) !== index)).toEqual([]);
  });

  it('writes paths relative to /api/v1', () => {
    expect(Object.values(restRoutes).filter((route) => !route.path?.startsWith('/') || route.path.startsWith('/api/'))).toEqual([]);
  });

  it('routes queries through GET', () => {
    const notGet = Object.entries(restRoutes).filter(([key, route]) => key.startsWith('Query.') && route.method !== 'GET');
    expect(notGet.map(([key]) => key)).toEqual([]);
  });
});
