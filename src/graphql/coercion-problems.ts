import {
  coerceInputValue,
  getNamedType,
  getNullableType,
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  GraphQLString,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  type GraphQLInputField,
  type GraphQLInputType,
} from 'graphql';
import { didYouMean } from 'graphql/jsutils/didYouMean.js';
import { suggestionList } from 'graphql/jsutils/suggestionList.js';
import type { FieldError } from '../errors/index.js';
import { VALUE_RULE_EXTENSION } from '../shared/index.js';

/**
 * A value graphql-js refuses for an input type, said as the class-validator
 * rules are said: the field (a dotted path into lists and objects) and what
 * it must be (`mealType must be one of breakfast, lunch, dinner, snack`),
 * with rule `required` (missing or null where a value is needed) or `type`.
 * The same words whichever way the value came (REST, a GraphQL variable, an
 * inline literal); the value itself is never repeated back.
 */

export type InputPath = readonly (string | number)[];

/** What an argument's or input field's value must be, in words, when its declaration says so (IsIntegerIn). */
export function valueRuleOf(holder: { extensions?: Readonly<Record<string, unknown>> | null } | undefined): string | undefined {
  const rule = holder?.extensions?.[VALUE_RULE_EXTENSION];
  return typeof rule === 'string' ? rule : undefined;
}

/**
 * Reads `value` as a variable of `type` is read; every refusal as a field
 * error under `name`, saying `rule` (the argument's own, in words) when it has one.
 */
export function coerceValue(
  name: string,
  type: GraphQLInputType,
  given: boolean,
  value: unknown,
  rule?: string,
): { value?: unknown; problems: FieldError[] } {
  if (!given || value === null) {
    return isNonNullType(type) ? { problems: [requiredProblem([name])] } : { value: given ? null : undefined, problems: [] };
  }
  const problems: FieldError[] = [];
  const coerced: unknown = coerceInputValue(value, type, (path, _invalid, error) => {
    problems.push(coercionProblem(name, type, path, error.message, rule));
  });
  return problems.length > 0 ? { problems } : { value: coerced, problems };
}

/** One refusal of graphql-js (coercion or validation) at `path` inside the value of `name` (whose rule in words is `rule`). */
export function coercionProblem(name: string, type: GraphQLInputType, path: InputPath, message: string, rule?: string): FieldError {
  const at = [name, ...path];
  // graphql-js reports a missing object field on the object's path, naming the field ("Type.field" at validation).
  const missing = /^Field "(?:\w+\.)?(\w+)" of required type "[^"]+" was not provided/.exec(message)?.[1];
  if (missing) return requiredProblem([...at, missing]);
  if (/must not be null|not to be null|found null/.test(message)) return requiredProblem(at);
  // An object field the type does not have: named as REST's unknown arguments are, with graphql-js's own suggestion.
  const unknown = /^Field "(\w+)" is not defined by type "\w+"\.(.*)$/.exec(message);
  if (unknown) return unknownFieldProblem(at.join('.'), unknown[1]!, unknown[2]!);
  const field = at.join('.');
  const expected = typeAt(type, path, rule);
  return { field, rule: 'type', message: expected ? `${field} must be ${expectation(expected.type, expected.rule)}` : `${field}: ${message}` };
}

/** graphql-js's own suggestion for `name` among `known` (` Did you mean "email"?`), as it words unknown arguments; '' when none is close. */
export function suggestionAmong(name: string, known: readonly string[]): string {
  return didYouMean(suggestionList(name, known));
}

/** `social.twiter is not a field of social. Did you mean "twitter"?` (the suggestion: graphql-js's didYouMean, or none). */
export function unknownFieldProblem(parent: string, name: string, suggestion: string): FieldError {
  const field = parent ? `${parent}.${name}` : name;
  return { field, rule: 'unknown', message: `${field} is not a field of ${parent || 'this operation'}.${suggestion}` };
}

function requiredProblem(at: InputPath): FieldError {
  const field = at.join('.');
  return { field, rule: 'required', message: `${field} is required` };
}

/** The type of the value at `path` (list indexes, object field names), and its rule in words, when the path fits the type. */
function typeAt(type: GraphQLInputType, path: InputPath, rule: string | undefined): { type: GraphQLInputType; rule?: string } | undefined {
  let current: GraphQLInputType | undefined = type;
  let currentRule = rule;
  for (const step of path) {
    const nullable: GraphQLInputType | undefined = current && getNullableType(current);
    if (typeof step === 'number' && nullable && isListType(nullable)) current = nullable.ofType;
    else if (typeof step === 'string' && nullable && isInputObjectType(nullable)) {
      const field: GraphQLInputField | undefined = nullable.getFields()[step];
      current = field?.type;
      currentRule = valueRuleOf(field);
    } else return undefined;
  }
  return current && { type: current, rule: currentRule };
}

/** Scalars beyond GraphQL's own that the schema uses, in words. */
const SCALAR_WORDS: Record<string, string> = {
  DateTimeISO: 'an ISO 8601 date-time with a zone, such as 2026-03-03T12:00:00Z',
  JSONObject: 'a JSON object',
};

/** What a value of `type` must be, in words; `rule`: its declared rule, in words (valueRuleOf), said instead of the scalar's range. */
export function expectation(type: GraphQLInputType, rule?: string): string {
  const nullable = getNullableType(type);
  if (isListType(nullable)) return `a list, each item ${expectation(nullable.ofType, rule)}`;
  if (rule) return rule;
  if (isEnumType(nullable)) return `one of ${nullable.getValues().map((value) => value.name).join(', ')}`;
  if (isInputObjectType(nullable)) return `an object with only the fields ${Object.keys(nullable.getFields()).join(', ')}`;
  if (nullable === GraphQLInt) return 'an integer from -2147483648 to 2147483647';
  if (nullable === GraphQLFloat) return 'a finite number';
  if (nullable === GraphQLString) return 'a string';
  if (nullable === GraphQLBoolean) return 'true or false';
  if (nullable === GraphQLID) return 'a string or an integer';
  const name = getNamedType(nullable).name;
  return SCALAR_WORDS[name] ?? `a valid ${name}`;
}
