import { IsString, Length } from 'class-validator';
import { Args, ArgsType, Authorized, Field, Info, Query, Resolver } from 'type-graphql';
import type { GraphQLResolveInfo, GraphQLSchema } from 'graphql';
import { AppError } from '../errors/index.js';
import { buildJsonSchemas, JSONObject, type JsonSchema, standaloneSchema } from '../graphql/index.js';

@ArgsType()
export class SchemaNameArgs {
  @Field({ description: 'A schema name from schemaNames, e.g. User, CreateUserInput, MealMenu, ApiKey.' })
  @IsString()
  @Length(1, 100)
  schemaName!: string;
}

/** Built once per GraphQL schema: the declarations do not change while the service runs. */
const catalogues = new WeakMap<GraphQLSchema, Map<string, JsonSchema>>();

function catalogueOf(schema: GraphQLSchema): Map<string, JsonSchema> {
  let catalogue = catalogues.get(schema);
  if (!catalogue) catalogues.set(schema, (catalogue = buildJsonSchemas(schema)));
  return catalogue;
}

/** Thin: the catalogue is derived from the served schema itself (src/graphql/json-schema.ts). */
@Resolver()
export class SchemaResolver {
  @Authorized('schemas:read')
  @Query(() => [String], { description: 'The names of every schema `schema(schemaName)` answers, sorted.' })
  schemaNames(@Info() info: GraphQLResolveInfo): string[] {
    return [...catalogueOf(info.schema).keys()].sort();
  }

  @Authorized('schemas:read')
  @Query(() => JSONObject, {
    description:
      'The JSON Schema (draft 2020-12, usable as an OpenAPI 3.1 component) of one type: its fields, types, required list, ' +
      'descriptions, defaults and validation rules; what it references is under $defs. Unknown name: 404 listing the known names.',
  })
  schema(@Args() { schemaName }: SchemaNameArgs, @Info() info: GraphQLResolveInfo): JsonSchema {
    const catalogue = catalogueOf(info.schema);
    const found = standaloneSchema(catalogue, schemaName);
    if (!found) {
      throw new AppError('NOT_FOUND', `Schema '${schemaName}' was not found; known schemas: ${[...catalogue.keys()].sort().join(', ')}`);
    }
    return found;
  }
}
