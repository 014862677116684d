import { IsString, Length } from 'class-validator';
import type { GraphQLResolveInfo } from 'graphql';
import { Args, ArgsType, Authorized, Field, Info, Query, Resolver } from 'type-graphql';
import { AppError } from '../errors/index.js';
import { JSONObject, type JsonSchema } from '../graphql/index.js';
import { schemaCatalogueOf } from './schema-catalogue.js';

@ArgsType()
export class SchemaNameArgs {
  @Field({ description: 'A schema name from schemaNames, e.g. User, CreateUserInput, MealMenu, ApiKey.' })
  @IsString()
  @Length(1, 100)
  schemaName!: string;
}

/** Thin: the catalogue is derived from the served schema itself and is the OpenAPI document's components. */
@Resolver()
export class SchemaResolver {
  @Authorized('schemas:read')
  @Query(() => [String], { description: 'The names of every schema `schema(schemaName)` answers, sorted.' })
  schemaNames(@Info() info: GraphQLResolveInfo): string[] {
    return [...schemaCatalogueOf(info.schema).keys()].sort();
  }

  @Authorized('schemas:read')
  @Query(() => JSONObject, {
    description:
      'The JSON Schema (draft 2020-12) of one type, exactly the OpenAPI 3.1 component of that name in /api/v1/openapi.json: its fields, types, ' +
      'required list, descriptions, defaults and validation rules; another type it uses is a $ref to its component (#/components/schemas/<name>). ' +
      'Unknown name: 404 listing the known names.',
  })
  schema(@Args() { schemaName }: SchemaNameArgs, @Info() info: GraphQLResolveInfo): JsonSchema {
    const catalogue = schemaCatalogueOf(info.schema);
    const found = catalogue.get(schemaName);
    if (!found) {
      throw new AppError('NOT_FOUND', `Schema '${schemaName}' was not found; known schemas: ${[...catalogue.keys()].sort().join(', ')}`);
    }
    return found;
  }
}
