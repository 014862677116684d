import { getMetadataStorage as getValidationStorage } from 'class-validator';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import {
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import { getMetadataStorage as getTypeGraphQLStorage } from 'type-graphql';
import { CURSOR_PATTERN, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../shared/index.js';
import {
  calendarDatePattern,
  emailPattern,
  ipOrCidrPattern,
  originPattern,
  passwordPattern,
  urlPattern,
  type RulePattern,
} from './rule-patterns.js';

/** A JSON Schema document (draft 2020-12), as plain data. */
export type JsonSchema = Record<string, unknown>;

export interface JsonSchemaOptions {
  /** The arguments each mutation's REST route takes in its path, by mutation name: not part of its `<Mutation>Input`. */
  pathArguments?: ReadonlyMap<string, readonly string[]>;
}

/** The name of a mutation's arguments schema: `createUser` -> `CreateUserInput`. */
export function mutationInputName(mutation: string): string {
  return `${mutation[0]!.toUpperCase()}${mutation.slice(1)}Input`;
}

/**
 * Where one schema refers to another: the OpenAPI document's components,
 * which are these schemas (src/http/openapi.ts), so a reference resolves
 * there as it is written.
 */
export const SCHEMA_REF_PREFIX = '#/components/schemas/';

/**
 * Rules that are ours (class-validator's `ValidateBy`), and built-in ones the
 * service checks more strictly than class-validator-jsonschema writes them, as
 * JSON Schema: the converter for each rule name. The other built-in rules
 * (Length, Matches, IsEnum, IsIn, Min, Max, ArrayMaxSize, ...) are
 * class-validator-jsonschema's. A `description` here says where a pattern
 * cannot follow the check exactly; it is added to the field's description.
 */
const OWN_RULES: Record<string, JsonSchema | ((meta: { constraints?: unknown[] }) => JsonSchema)> = {
  // JSON Schema's format name (class-validator-jsonschema writes 'url'): `iri`, as validator.js's isURL takes
  // non-ASCII host names; and the grammar of isURL.
  isUrl: (meta) => ({
    type: 'string',
    format: 'iri',
    ...rule(urlPattern((meta.constraints?.[0] as { protocols?: string[] } | undefined)?.protocols ?? ['http', 'https', 'ftp'])),
  }),
  // class-validator's isEmail takes non-ASCII addresses (idn-email).
  isEmail: { type: 'string', format: 'idn-email', ...rule(emailPattern()) },
  isAcceptablePassword: {
    type: 'string',
    format: 'password',
    minLength: PASSWORD_MIN_LENGTH,
    maxLength: PASSWORD_MAX_LENGTH,
    ...rule(passwordPattern()),
  },
  isCalendarDate: { type: 'string', format: 'date', ...rule(calendarDatePattern()) },
  isPageCursor: { type: 'string', pattern: CURSOR_PATTERN.source },
  isIpOrCidr: { type: 'string', ...rule(ipOrCidrPattern()) },
  isOrigin: { type: 'string', format: 'uri', ...rule(originPattern()) },
};

function rule({ pattern, note }: RulePattern): JsonSchema {
  return note ? { pattern, description: note } : { pattern };
}

/** GraphQL's Int is a signed 32-bit integer: a larger number is refused before any rule runs. */
const INT_BOUNDS = { minimum: -(2 ** 31), maximum: 2 ** 31 - 1 };

/** Which JSON Schema keywords a rule may add to a property: never its type, which GraphQL decides. */
const TYPE_KEYWORDS = new Set(['type', '$ref', 'not', 'properties', 'required']);

/**
 * Every schema the lookup answers, by name, derived from the same declarations
 * GraphQL and validation use: the GraphQL type of each field (types,
 * nullability, lists, enums, nested types, descriptions, defaults) and the
 * class-validator rules of its class (lengths, patterns, formats, enums,
 * bounds). Names are the GraphQL type names; a mutation's flat arguments are
 * `<Mutation>Input` (`createUser` -> `CreateUserInput`): its REST body, so
 * without the arguments its REST path carries (`pathArguments`, by mutation).
 * Each schema is an OpenAPI 3.1 component: what it references is another
 * component (`#/components/schemas/<name>`).
 */
export function buildJsonSchemas(schema: GraphQLSchema, { pathArguments = new Map() }: JsonSchemaOptions = {}): Map<string, JsonSchema> {
  const rulesByClass = validationMetadatasToSchemas({
    classValidatorMetadataStorage: getValidationStorage(),
    refPointerPrefix: SCHEMA_REF_PREFIX,
    additionalConverters: OWN_RULES as never,
  }) as unknown as Record<string, JsonSchema>;
  const typeGraphQL = getTypeGraphQLStorage();
  const classOf = new Map<string, Function>([...typeGraphQL.objectTypes, ...typeGraphQL.inputTypes].map((meta) => [meta.name, meta.target]));
  const rulesOf = (target: Function | undefined) => (target ? rulesForClass(rulesByClass, target) : {});
  const writtenRules = rulesOfWrittenFields(schema, rulesOf, classOf);
  const recordRulesOf = (target: Function | undefined) => (target ? { ...writtenRules.of(target), ...rulesOf(target) } : {});

  const schemas = new Map<string, JsonSchema>();
  const rootTypes = new Set([schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].filter(Boolean));
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || rootTypes.has(type as never)) continue;
    if (isObjectType(type) || isInputObjectType(type)) {
      const fields = Object.values(type.getFields()) as (GraphQLField<unknown, unknown> | GraphQLInputField)[];
      const rules = isInputObjectType(type) ? rulesOf(classOf.get(type.name)) : recordRulesOf(classOf.get(type.name));
      schemas.set(type.name, objectSchema(type.name, type.description, fields, rules, isInputObjectType(type)));
    } else if (isEnumType(type)) {
      schemas.set(type.name, withDescription({ type: 'string', enum: type.getValues().map((value) => value.value) }, type.description));
    }
  }
  for (const field of Object.values(schema.getMutationType()?.getFields() ?? {})) {
    const inPath = pathArguments.get(field.name) ?? [];
    const bodyArgs = field.args.filter((arg) => !inPath.includes(arg.name));
    const name = mutationInputName(field.name);
    if (bodyArgs.length === 0 || schemas.has(name)) continue;
    const description = inPath.length
      ? `The arguments of ${field.name} but ${inPath.map((arg) => `\`${arg}\``).join(', ')}, which the REST path carries: its REST body.`
      : `The arguments of ${field.name}: its REST body.`;
    schemas.set(name, objectSchema(name, description, bodyArgs, rulesOf(argsClassOf(field.name)), true));
  }
  return schemas;
}

/**
 * The rules of the fields records answer, from the arguments that write them:
 * a mutation writes the fields of what it answers, so each argument's rules
 * go to the answered type's field of the same name and type (an input
 * object's fields to the object type's, e.g. MealMenuItemInput's to
 * MealMenuItem's). Kept by the class that declares the field, so a type that
 * extends a record (ApiKeyWithSecret) and the record itself (ApiKey) carry
 * the same rules. A list of allowed strings (IsIn, `enum`) is left out: it
 * says what a client may send, while the service's own records may hold
 * more (the built-in admin role holds `*`).
 */
function rulesOfWrittenFields(
  schema: GraphQLSchema,
  rulesOf: (target: Function | undefined) => Record<string, JsonSchema>,
  classOf: ReadonlyMap<string, Function>,
) {
  const byClass = new Map<Function, Record<string, JsonSchema>>();
  const seen = new Set<string>();
  const attribute = (record: GraphQLObjectType, fields: readonly (GraphQLArgument | GraphQLInputField)[], rules: Record<string, JsonSchema>) => {
    for (const written of fields) {
      const field = record.getFields()[written.name];
      if (!field) continue;
      const argType = getNamedType(written.type);
      const fieldType = getNamedType(field.type);
      const objects = isInputObjectType(argType) && isObjectType(fieldType);
      // Each pair of an input and an object type once: input types may nest.
      if (objects && !seen.has(`${argType.name}>${fieldType.name}`)) {
        seen.add(`${argType.name}>${fieldType.name}`);
        attribute(fieldType, Object.values(argType.getFields()), rulesOf(classOf.get(argType.name)));
      }
      const declaring = declaringClass(classOf.get(record.name), field.name);
      if ((!objects && argType.name !== fieldType.name) || !rules[written.name] || !declaring) continue;
      const declared = byClass.get(declaring) ?? {};
      declared[field.name] ??= withoutAllowedValues(rules[written.name]!);
      byClass.set(declaring, declared);
    }
  };
  for (const mutation of Object.values(schema.getMutationType()?.getFields() ?? {})) {
    const answered = getNamedType(mutation.type);
    if (isObjectType(answered)) attribute(answered, mutation.args, rulesOf(argsClassOf(mutation.name)));
  }
  return {
    /** The written rules of a record class's fields, its parents' included. */
    of(target: Function): Record<string, JsonSchema> {
      const chain: Function[] = [];
      for (let current: Function | null = target; current && current !== Function.prototype; current = Object.getPrototypeOf(current) as Function | null) chain.push(current);
      return Object.assign({}, ...chain.reverse().map((declaring) => byClass.get(declaring) ?? {}));
    },
  };
}

function withoutAllowedValues({ enum: _allowedByWrites, ...rules }: JsonSchema): JsonSchema {
  return rules.items && typeof rules.items === 'object' ? { ...rules, items: withoutAllowedValues(rules.items as JsonSchema) } : rules;
}

/** The class in `target`'s chain (itself, then its parents) that declares the GraphQL field `name`. */
function declaringClass(target: Function | undefined, name: string): Function | undefined {
  const fields = getTypeGraphQLStorage().fields;
  for (let current = target; current && current !== Function.prototype; current = Object.getPrototypeOf(current) as Function | undefined) {
    if (fields.some((field) => field.target === current && field.schemaName === name)) return current;
  }
  return undefined;
}

function objectSchema(
  name: string,
  description: string | null | undefined,
  fields: readonly (GraphQLField<unknown, unknown> | GraphQLInputField | GraphQLArgument)[],
  rules: Record<string, JsonSchema>,
  isInput: boolean,
): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const field of fields) {
    const defaultValue = 'defaultValue' in field ? field.defaultValue : undefined;
    const fieldRules = rules[field.name];
    // IsDefined (class-validator-jsonschema: `not: {type: 'null'}`) refuses null: the field may be absent, never null,
    // although GraphQL must type an optional argument as nullable.
    const typed = typeSchema(field.type, isInput && refusesNull(fieldRules));
    const { description: ruleNote, ...valueRules } = fieldRules ?? {};
    const property = withRules(typed, fieldRules ? valueRules : undefined);
    const description = [field.description, ruleNote].filter(Boolean).join(' ');
    if (description) property.description = description;
    if (defaultValue !== undefined) property.default = defaultValue;
    properties[field.name] = property;
    if (isNonNullType(field.type) && defaultValue === undefined) required.push(field.name);
  }
  return withDescription(
    { type: 'object', properties, ...(required.length ? { required } : {}), ...(isInput ? { additionalProperties: false } : {}) },
    description ?? `The ${name} type.`,
  );
}

/** A GraphQL type as JSON Schema; nullable unless non-null or `nonNull` (a rule refuses null). */
function typeSchema(type: GraphQLOutputType | GraphQLInputType, nonNull = false): JsonSchema {
  const inner = getNullableType(type);
  let schema: JsonSchema;
  if (isListType(inner)) schema = { type: 'array', items: typeSchema(inner.ofType) };
  else if (isScalarType(inner)) schema = scalarSchema(inner.name);
  else schema = { $ref: `${SCHEMA_REF_PREFIX}${getNamedType(inner).name}` };
  if (isNonNullType(type) || nonNull) return schema;
  return typeof schema.type === 'string' ? { ...schema, type: [schema.type, 'null'] } : { anyOf: [schema, { type: 'null' }] };
}

function scalarSchema(name: string): JsonSchema {
  switch (name) {
    case 'Int':
      return { type: 'integer', ...INT_BOUNDS };
    case 'Float':
      return { type: 'number' };
    case 'Boolean':
      return { type: 'boolean' };
    case 'DateTimeISO':
      return { type: 'string', format: 'date-time' };
    case 'JSONObject':
      return { type: 'object' };
    default:
      return { type: 'string' };
  }
}

function refusesNull(rules: JsonSchema | undefined): boolean {
  const not = rules?.not as JsonSchema | undefined;
  return not?.type === 'null';
}

/** A field's type with the class's rules for it (items rules go into the items). */
function withRules(typed: JsonSchema, rules: JsonSchema | undefined): JsonSchema {
  if (!rules) return typed;
  const merged: JsonSchema = { ...typed };
  const target = Array.isArray(merged.anyOf) ? (merged.anyOf[0] as JsonSchema) : merged;
  for (const [keyword, value] of Object.entries(rules)) {
    if (keyword === 'items' && target.items && typeof value === 'object') {
      target.items = withRules(target.items as JsonSchema, value as JsonSchema);
    } else if (!TYPE_KEYWORDS.has(keyword)) {
      target[keyword] = value;
    }
  }
  return merged;
}

function withDescription(schema: JsonSchema, description: string | null | undefined): JsonSchema {
  return description ? { description, ...schema } : schema;
}

/** The class-validator rules of a class, its parents' included (class-validator-jsonschema merges them). */
function rulesForClass(rulesByClass: Record<string, JsonSchema>, target: Function): Record<string, JsonSchema> {
  return (rulesByClass[target.name]?.properties as Record<string, JsonSchema> | undefined) ?? {};
}

/** The ArgsType class a root field's resolver takes its flat arguments from. */
function argsClassOf(fieldName: string): Function | undefined {
  const storage = getTypeGraphQLStorage();
  const resolver = storage.mutations.find((mutation) => mutation.schemaName === fieldName);
  if (!resolver) return undefined;
  const param = storage.params.find(
    (candidate) => candidate.kind === 'args' && candidate.target === resolver.target && candidate.methodName === resolver.methodName,
  );
  return param && param.kind === 'args' ? (param.getType() as Function) : undefined;
}
