/** The schemas area: the JSON Schema of each type, by name, derived from the declarations themselves. */
export { publishSchemaCatalogue } from './schema-catalogue.js';
export { SchemaResolver } from './schema.resolver.js';
export { schemaRestRoutes } from './schemas.routes.js';
