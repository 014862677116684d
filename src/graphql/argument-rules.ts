import { validateSync, type ValidatorOptions } from 'class-validator';
import { getNullableType, isInputObjectType, isListType, OperationTypeNode, type GraphQLField, type GraphQLInputType } from 'graphql';
import { getMetadataStorage } from 'type-graphql';
import { validationFieldErrors, type FieldError } from '../errors/index.js';
import { unstorableValueProblems } from './storable-values.js';

/** The class-validator options of every operation's arguments (buildSchema's `validate`). */
export const ARGUMENT_VALIDATION: ValidatorOptions = { forbidUnknownValues: false };

type InputClass = new () => object;

/** What type-graphql keeps of an `@Args()` parameter. */
interface ArgsParameter {
  kind: string;
  getType(): unknown;
  validateSettings?: boolean | ValidatorOptions;
  validateFn?: unknown;
}

/**
 * The class-validator rules of an operation's `@Args()` class, run on the
 * arguments that graphql-js could read (`values`, as the resolver would get
 * them), leaving out the `failed` ones (their type was already wrong).
 * type-graphql runs these rules only once every argument has been read, so a
 * value refused by GraphQL coercion (an enum, a scalar) would otherwise hide
 * every rule of the other fields. The instance is built as type-graphql
 * builds it (nested inputs as their classes) and checked with type-graphql's
 * options, and for values storage would not keep (storable-values.ts). Synchronous: the REST edge reads arguments synchronously, and no
 * rule of the service is asynchronous.
 */
export function argumentRuleProblems(
  operationType: OperationTypeNode,
  field: GraphQLField<unknown, unknown>,
  values: Record<string, unknown>,
  failed: ReadonlySet<string>,
): FieldError[] {
  const parameter = argsParameterOf(operationType, field.name);
  const ArgsClass = parameter?.getType();
  if (!parameter || typeof ArgsClass !== 'function' || parameter.validateSettings === false || parameter.validateFn) return [];
  const types = new Map(field.args.map((arg) => [arg.name, arg.type]));
  const instance = toInstance(ArgsClass as InputClass, values, (name) => types.get(name));
  const options: ValidatorOptions = {
    ...ARGUMENT_VALIDATION,
    ...(typeof parameter.validateSettings === 'object' ? parameter.validateSettings : {}),
  };
  // type-graphql's defaults: absent values skip their rules, unknown values are no error.
  options.skipMissingProperties = options.skipMissingProperties !== false;
  options.forbidUnknownValues = options.forbidUnknownValues === true;
  const problems = [...validationFieldErrors(validateSync(instance, options)), ...unstorableValueProblems(instance)];
  return problems.filter((error) => !failed.has(error.field.split('.')[0]!));
}

function argsParameterOf(operationType: OperationTypeNode, fieldName: string): ArgsParameter | undefined {
  const storage = getMetadataStorage();
  const resolvers =
    operationType === OperationTypeNode.MUTATION ? storage.mutations : operationType === OperationTypeNode.QUERY ? storage.queries : [];
  const resolver = resolvers.find((candidate) => candidate.schemaName === fieldName);
  return (resolver?.params as ArgsParameter[] | undefined)?.find((parameter) => parameter.kind === 'args');
}

/** type-graphql's `convertToType`: a new instance (its initialisers give defaults), then the values. */
function toInstance(Target: InputClass, values: Record<string, unknown>, typeOf: (name: string) => GraphQLInputType | undefined): object {
  const instance = new Target() as Record<string, unknown>;
  for (const key of Object.keys(instance)) {
    if (instance[key] === undefined && !(key in values)) delete instance[key];
  }
  for (const [name, value] of Object.entries(values)) {
    const type = typeOf(name);
    instance[name] = type ? toInputValue(type, value) : value;
  }
  return instance;
}

/** Nested input objects become instances of their `@InputType` classes, so `@ValidateNested` checks them. */
function toInputValue(type: GraphQLInputType, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  const nullable = getNullableType(type);
  if (isListType(nullable)) return Array.isArray(value) ? value.map((item) => toInputValue(nullable.ofType, item)) : value;
  if (!isInputObjectType(nullable) || typeof value !== 'object') return value;
  const fields = nullable.getFields();
  const Target = getMetadataStorage().inputTypes.find((input) => input.name === nullable.name)?.target as InputClass | undefined;
  return toInstance(Target ?? Object, value as Record<string, unknown>, (name) => fields[name]?.type);
}
