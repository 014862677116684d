import type { GraphQLSchema } from 'graphql';
import type { JsonSchema } from '../graphql/index.js';

/**
 * The schemas the lookup answers, by the GraphQL schema that serves them:
 * built once at start-up from that schema and the REST routes
 * (src/graphql/json-schema.ts), the very objects that are the OpenAPI
 * document's components. The GraphQL schema is built from the resolvers
 * before its JSON Schemas can be, so the composition root publishes them
 * here and the resolver reads them by `info.schema`.
 */
const catalogues = new WeakMap<GraphQLSchema, ReadonlyMap<string, JsonSchema>>();

export function publishSchemaCatalogue(schema: GraphQLSchema, schemas: ReadonlyMap<string, JsonSchema>): void {
  catalogues.set(schema, schemas);
}

export function schemaCatalogueOf(schema: GraphQLSchema): ReadonlyMap<string, JsonSchema> {
  const schemas = catalogues.get(schema);
  if (!schemas) throw new Error('schema lookup: the service did not publish the JSON Schemas of this GraphQL schema');
  return schemas;
}
