import {
  getOperationAST,
  isInputType,
  Kind,
  typeFromAST,
  valueFromAST,
  type ASTNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLArgument,
  type GraphQLError,
  type GraphQLField,
  type GraphQLSchema,
  type ObjectFieldNode,
  type OperationTypeNode,
  type ValueNode,
  type VariableDefinitionNode,
} from 'graphql';
import { errors, type AppError, type FieldError } from '../errors/index.js';
import { argumentRuleProblems } from './argument-rules.js';
import { coercionProblem, coerceValue, valueRuleOf, type InputPath } from './coercion-problems.js';
import { fieldNodesOf } from './selection.js';

/**
 * One refusal naming every failing argument of an operation. graphql-js
 * refuses an operation at its first stage that fails: an argument literal of
 * the wrong type at validation, a variable of the wrong type at coercion; the
 * class-validator rules of the other arguments (type-graphql, in the
 * resolver) never run. So when a value fails there, the arguments that did
 * read are checked against their rules here, and everything goes back as one
 * 400 BAD_USER_INPUT: the values that did not read (coercion-problems.ts),
 * then each rule the others break. Used by the REST edge (`readArguments`, then
 * the rules) and the GraphQL plugin (`operationInputRefusal`).
 */

/** The arguments of one field, read one by one: what read, what failed and why. */
export interface ArgumentReading {
  values: Record<string, unknown>;
  failed: Set<string>;
  problems: FieldError[];
}

/**
 * Reads raw argument values (JSON, as a client sends variables) as graphql-js
 * reads variables of the arguments' types, each on its own so one failure
 * hides no other. Absent arguments take their defaults.
 */
export function readArguments(args: readonly GraphQLArgument[], raw: Readonly<Record<string, unknown>>): ArgumentReading {
  const reading: ArgumentReading = { values: {}, failed: new Set(), problems: [] };
  for (const arg of args) {
    const given = Object.hasOwn(raw, arg.name) && raw[arg.name] !== undefined;
    if (!given && arg.defaultValue !== undefined) {
      reading.values[arg.name] = arg.defaultValue;
      continue;
    }
    const result = coerceValue(arg.name, arg.type, given, raw[arg.name], valueRuleOf(arg));
    if (result.problems.length > 0) {
      reading.failed.add(arg.name);
      reading.problems.push(...result.problems);
    } else if (given) {
      reading.values[arg.name] = result.value;
    }
  }
  return reading;
}

export interface OperationInput {
  schema: GraphQLSchema;
  document: DocumentNode;
  operationName?: string | null;
  /** The request's variables, as sent. */
  variables?: Readonly<Record<string, unknown>> | null;
  /** What validation refused, when it did (argument literals of the wrong type). */
  validationErrors?: readonly GraphQLError[];
}

/**
 * The one refusal for a GraphQL operation whose root-field arguments fail to
 * read (a literal refused by validation, a variable refused by coercion);
 * undefined when none fails, or when validation refused something that is no
 * argument value (an unknown field, say: graphql-js's own answer stands).
 * Values are named by argument (a variable by the argument it is); a failing
 * variable used anywhere else is named by itself.
 */
export function operationInputRefusal(input: OperationInput): AppError | undefined {
  const { schema, document, operationName, validationErrors = [] } = input;
  const operation = getOperationAST(document, operationName ?? undefined);
  const rootType = operation && schema.getRootType(operation.operation);
  if (!operation || !rootType) return undefined;

  const variables = readVariables(schema, operation.variableDefinitions ?? [], input.variables ?? {});
  // The usual request: everything reads; graphql-js and type-graphql take it from here. A
  // nullable variable left null or unset reads, yet may sit where an argument is non-null.
  if (validationErrors.length === 0 && variables.failed.size === 0 && !variables.someUnset) return undefined;

  const scope: ArgumentScope = { variables, unclaimed: new Set(validationErrors), claimedVariables: new Set() };
  const readings: { field: GraphQLField<unknown, unknown>; reading: ArgumentReading }[] = [];
  // Root fields spread from fragments too (`{ ...F }`): theirs are arguments like any other.
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  for (const selection of fieldNodesOf([operation.selectionSet], (name) => fragments.get(name))) {
    const field = rootType.getFields()[selection.name.value];
    if (!field) continue;
    const reading: ArgumentReading = { values: {}, failed: new Set(), problems: [] };
    for (const arg of field.args) readArgumentNode(selection, arg, scope, reading);
    readings.push({ field, reading });
  }
  // A refusal by validation that is not about an argument value: not ours to reword.
  if (scope.unclaimed.size > 0) return undefined;
  const typeProblems = readings.flatMap(({ reading }) => reading.problems);
  for (const [name, problemsAs] of variables.failed) {
    if (!scope.claimedVariables.has(name)) typeProblems.push(...problemsAs(name));
  }
  if (typeProblems.length === 0) return undefined;
  const ruleProblems = readings.flatMap(({ field, reading }) =>
    argumentRuleProblems(operation.operation, field, reading.values, reading.failed),
  );
  return errors.invalidFields([...typeProblems, ...ruleProblems]);
}

interface VariableReading {
  coerced: Record<string, unknown>;
  /** Some variable read as null or was left out without a default. */
  someUnset: boolean;
  /** Variable name -> its problems, said under the name given (the argument's, or its own) and with that argument's rule. */
  failed: Map<string, (name: string, rule?: string) => FieldError[]>;
}

/** Each variable read alone, as graphql-js reads it (getVariableValues), so every failing one is known. */
function readVariables(
  schema: GraphQLSchema,
  definitions: readonly VariableDefinitionNode[],
  raw: Readonly<Record<string, unknown>>,
): VariableReading {
  const reading: VariableReading = { coerced: {}, someUnset: false, failed: new Map() };
  for (const definition of definitions) {
    const variable = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type);
    // An unknown type is a validation error of the document; this variable reads nothing.
    if (!type || !isInputType(type)) {
      reading.failed.set(variable, () => []);
      continue;
    }
    const given = Object.hasOwn(raw, variable) && raw[variable] !== undefined;
    if (!given && definition.defaultValue) {
      reading.coerced[variable] = valueFromAST(definition.defaultValue, type);
      continue;
    }
    const result = coerceValue(variable, type, given, raw[variable]);
    if (result.problems.length > 0) reading.failed.set(variable, (name, rule) => coerceValue(name, type, given, raw[variable], rule).problems);
    else if (given) reading.coerced[variable] = result.value;
    if (result.problems.length === 0 && (!given || result.value === null)) reading.someUnset = true;
  }
  return reading;
}

interface ArgumentScope {
  variables: VariableReading;
  /** Validation errors no argument has explained yet. */
  unclaimed: Set<GraphQLError>;
  claimedVariables: Set<string>;
}

/** One argument of a root field: its validation errors and failed variables, else its value. */
function readArgumentNode(field: FieldNode, arg: GraphQLArgument, scope: ArgumentScope, reading: ArgumentReading): void {
  const { variables, unclaimed, claimedVariables } = scope;
  const node = field.arguments?.find((candidate) => candidate.name.value === arg.name);
  for (const error of unclaimed) {
    const at = error.nodes?.[0];
    // ProvidedRequiredArgumentsRule reports a missing argument on the field itself.
    const aboutAbsence = !node && at === field && error.message.includes(`argument "${arg.name}"`);
    const path = node && at ? pathTo(node.value, at) : undefined;
    if (!aboutAbsence && !path) continue;
    unclaimed.delete(error);
    reading.failed.add(arg.name);
    reading.problems.push(
      aboutAbsence
        ? { field: arg.name, rule: 'required', message: `${arg.name} is required` }
        : coercionProblem(arg.name, arg.type, path ?? [], error.message, valueRuleOf(arg)),
    );
  }
  for (const name of node ? variablesIn(node.value) : []) {
    const problemsAs = variables.failed.get(name);
    if (!problemsAs) continue;
    claimedVariables.add(name);
    reading.failed.add(arg.name);
    // The argument is the variable: name it as the argument; deeper, the variable says which.
    reading.problems.push(...(node?.value.kind === Kind.VARIABLE ? problemsAs(arg.name, valueRuleOf(arg)) : problemsAs(name)));
  }
  if (reading.failed.has(arg.name)) return;
  const missing = !node || (node.value.kind === Kind.VARIABLE && !Object.hasOwn(variables.coerced, node.value.name.value));
  if (missing) {
    // As graphql-js's getArgumentValues: a missing argument or variable takes the default.
    if (arg.defaultValue !== undefined) reading.values[arg.name] = arg.defaultValue;
    return;
  }
  const value = valueFromAST(node.value, arg.type, variables.coerced);
  if (value === undefined) {
    reading.failed.add(arg.name);
    reading.problems.push({ field: arg.name, rule: 'required', message: `${arg.name} is required` });
  } else {
    reading.values[arg.name] = value;
  }
}

/** Where `target` sits inside a value (list indexes, object field names); undefined when it is not inside. */
function pathTo(value: ValueNode, target: ASTNode): InputPath | undefined {
  if (value === target) return [];
  if (value.kind === Kind.LIST) {
    for (const [index, item] of value.values.entries()) {
      const path = pathTo(item, target);
      if (path) return [index, ...path];
    }
  }
  if (value.kind === Kind.OBJECT) {
    for (const field of value.fields as readonly ObjectFieldNode[]) {
      // An unknown object field is reported on the field: the object's path.
      if (field === target) return [];
      const path = pathTo(field.value, target);
      if (path) return [field.name.value, ...path];
    }
  }
  return undefined;
}

function variablesIn(value: ValueNode): string[] {
  if (value.kind === Kind.VARIABLE) return [value.name.value];
  if (value.kind === Kind.LIST) return value.values.flatMap(variablesIn);
  if (value.kind === Kind.OBJECT) return value.fields.flatMap((field) => variablesIn(field.value));
  return [];
}
