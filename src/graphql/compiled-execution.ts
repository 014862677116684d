import {
  execute as graphqlExecute,
  GraphQLError,
  getNamedType,
  getOperationAST,
  isInputObjectType,
  isInputType,
  typeFromAST,
  valueFromASTUntyped,
  visit,
  Kind,
  OperationTypeNode,
  type ASTNode,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { LRUCache } from 'lru-cache';
import { traceOperations } from './traced-execution.js';

/**
 * graphql-js's `execute`, with a document run compiled by graphql-jit where
 * graphql-jit answers as graphql-js does. graphql-js re-reads the document
 * on every call, which was the larger part of a list page's time; a compiled
 * query does not. Used by both surfaces: SOFA's `execute` (src/http/use-sofa-rest.ts)
 * and Apollo's executor (src/http/apollo.ts).
 *
 * A document is compiled the second time it is run (per operation name):
 * compiling costs about what Apollo's parse and validation of it do, so a
 * document seen only once (e.g. one with inlined literals) runs on graphql-js
 * and costs no more than it did there. Seen documents are remembered as long
 * as the document is (Apollo's document store keeps one per query text, SOFA
 * one per route); at most COMPILED_LIMIT compiled ones are kept, the least
 * recently run leaving first, since Apollo's store is bounded by the
 * documents' size (30 MiB), not by what their compilations hold (a compiled
 * document Apollo's store drops is held here until it leaves). What stays
 * on graphql-js, because graphql-jit gets it wrong or we cannot tell it would
 * not:
 * - a document graphql-jit cannot compile (it is stricter than validation in
 *   places, e.g. a nullable `@include(if: $v)` variable without a default);
 * - introspection (`__schema`, `__type`): rare, and graphql-js's answer is the
 *   one every tool expects;
 * - subscriptions (none here) and any operation that is not found;
 * - a mutation selecting more than one field (`__typename` beside its one
 *   mutation field: validation refuses several of those): graphql-jit runs
 *   the later ones even after one failed with a non-null result, graphql-js
 *   stops there (and a mutation must not run twice, so it cannot be asked again);
 * - a document with a variable whose type holds an input object field with a
 *   default: graphql-jit does not fill such a field, and it is not ours to
 *   fill without coercing the whole value;
 * - per request, for a variable used inside an input literal or a directive
 *   (used directly as a field's argument, graphql-jit reads it as graphql-js
 *   does): absent without a default (graphql-jit puts null where it sat in a
 *   literal, graphql-js leaves the field out), or given null against its
 *   default (graphql-js refuses null in a non-null position, graphql-jit
 *   passes it, or skips the field);
 * - variables graphql-jit refuses to coerce (nothing has run then; graphql-js's
 *   wording of the error is the one Apollo recognises as a bad user input);
 * - a query answered with more than one error: graphql-jit completes every
 *   field, graphql-js stops completing a value at its first non-null failure
 *   (errors after it in that value are never raised), so the set and order
 *   of errors can differ. A query only reads: it is asked again of graphql-js,
 *   and its next run goes to graphql-js alone (back to graphql-jit once that
 *   answers with fewer errors), so a document that keeps failing so costs
 *   one execution, not two, after its first such answer.
 *   A one-field mutation cannot run twice and keeps graphql-jit's errors;
 *   several errors there come only from a stored record the schema cannot
 *   answer (a server fault either way).
 * graphql-jit does not fill an absent variable's default either: defaults
 * are read here and passed under the given values, as a client would send
 * them (an enum by its name), since graphql-jit coerces the variables itself.
 */
export type Execute = (args: ExecutionArgs) => Promise<ExecutionResult>;

/** Compiled documents kept per executor: a list page's holds ~66 kB before it first runs (measured), ~33 MB for 500. */
const COMPILED_LIMIT = 500;

export function createCompiledExecute(schema: GraphQLSchema): Execute {
  // Compiled operations (null: graphql-js runs it) by document, then operation name
  // (null: none given, which is not "": that names no operation and graphql-js refuses it).
  const compiled = new LRUCache<DocumentNode, Map<string | null, CompiledOperation | null>>({ max: COMPILED_LIMIT });
  // The operation names each document was run with once: compiled when seen again.
  const seen = new WeakMap<DocumentNode, Set<string | null>>();
  const compiledFor = (args: ExecutionArgs): CompiledOperation | null => {
    const name = args.operationName ?? null;
    const known = compiled.get(args.document)?.get(name);
    if (known !== undefined) return known;
    let names = seen.get(args.document);
    if (!names) seen.set(args.document, (names = new Set()));
    if (!names.has(name)) {
      names.add(name);
      return null;
    }
    const operation = compileOperation(schema, args.document, args.operationName);
    const byName = compiled.get(args.document) ?? new Map<string | null, CompiledOperation | null>();
    compiled.set(args.document, byName.set(name, operation));
    return operation;
  };
  // Each run is the request's GraphQL operation span when tracing is on (traced-execution.ts).
  return traceOperations(async (args) => {
    const operation = compiledFor(args);
    const variables = operation && jitVariables(operation, args.variableValues ?? {});
    if (!operation || !variables) return graphqlExecute(args);
    if (operation.severalErrors) {
      // It answered with several errors last time: likely again, and graphql-js answers those alone.
      const reference = await graphqlExecute(args);
      operation.severalErrors = (reference.errors?.length ?? 0) > 1;
      return reference;
    }
    const result = await operation.query.query(args.rootValue, args.contextValue, variables);
    // Variables graphql-jit refused: nothing ran, and graphql-js says why in its own words.
    if (result.data === undefined && result.errors?.length) return graphqlExecute(args);
    if (!result.errors) return result;
    // Several errors: graphql-jit runs every field, graphql-js stops completing a value at its
    // first non-null failure (a query only reads: asked again, its answer is graphql-js's).
    if (result.errors.length > 1 && operation.type === OperationTypeNode.QUERY) {
      operation.severalErrors = true;
      return graphqlExecute(args);
    }
    return { ...result, errors: result.errors.map(asGraphQLJsError) };
  });
}

interface CompiledOperation {
  query: CompiledQuery;
  type: OperationTypeNode;
  /** The declared variables: name -> its default as a client would send it (undefined: none). */
  variables: Map<string, unknown>;
  /** Variables used inside an input literal or a directive's arguments. */
  nested: Set<string>;
  /** A query whose last answer had several errors: graphql-js runs it, alone, until one has fewer. */
  severalErrors: boolean;
}

function compileOperation(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null): CompiledOperation | null {
  const operation = getOperationAST(document, operationName);
  if (!operation || operation.operation === OperationTypeNode.SUBSCRIPTION || isIntrospection(document)) return null;
  // graphql-jit runs a mutation's later fields after one failed (graphql-js stops there): one at a time.
  const only = operation.selectionSet.selections;
  if (operation.operation === OperationTypeNode.MUTATION && (only.length !== 1 || only[0]?.kind !== Kind.FIELD)) return null;
  const variables = new Map<string, unknown>();
  for (const variable of operation.variableDefinitions ?? []) {
    const type = typeFromAST(schema, variable.type);
    if (!type || !isInputType(type) || hasFieldDefaults(type)) return null;
    variables.set(variable.variable.name.value, variable.defaultValue ? valueFromASTUntyped(variable.defaultValue) : undefined);
  }
  const query = compileQuery(schema, document, operationName ?? undefined);
  return isCompiledQuery(query) ? { query, type: operation.operation, variables, nested: nestedVariables(document), severalErrors: false } : null;
}

/**
 * The variables graphql-jit is given (defaults under the given values; one
 * given as undefined is absent), or null when graphql-js must run.
 */
function jitVariables(operation: CompiledOperation, given: Readonly<Record<string, unknown>>): Record<string, unknown> | null {
  const variables: Record<string, unknown> = {};
  for (const [name, defaultValue] of operation.variables) {
    const value = Object.hasOwn(given, name) ? given[name] : undefined;
    if (value === undefined) {
      if (defaultValue !== undefined) variables[name] = defaultValue;
      else if (operation.nested.has(name)) return null;
    } else if (value === null && defaultValue !== undefined && operation.nested.has(name)) {
      return null;
    } else {
      variables[name] = value;
    }
  }
  return variables;
}

/**
 * graphql-jit's errors pass for graphql-js's (its prototype) but are built
 * by hand: no `extensions` object when the thrown error had none (Apollo
 * reads `extensions.code` and fails), and they are not enumerable as
 * graphql-js's are. Rebuilt as graphql-js's own located error: the same
 * message, path and original error (whose extensions it takes, as
 * `locatedError` does), and graphql-jit's locations, which are the field's.
 */
function asGraphQLJsError(error: GraphQLError): GraphQLError {
  const rebuilt = new GraphQLError(error.message, { path: error.path, originalError: error.originalError });
  (rebuilt as { locations?: GraphQLError['locations'] }).locations = error.locations;
  return rebuilt;
}

/** Whether the document asks for `__schema` or `__type` anywhere. */
function isIntrospection(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value === '__schema' || node.name.value === '__type') found = true;
    },
  });
  return found;
}

/** The variables used inside an argument's input literal (not as the argument itself) or in a directive. */
function nestedVariables(document: DocumentNode): Set<string> {
  const nested = new Set<string>();
  const collect = (node: ASTNode) => visit(node, { Variable: (variable) => void nested.add(variable.name.value) });
  visit(document, {
    Field(field) {
      for (const argument of field.arguments ?? []) if (argument.value.kind !== Kind.VARIABLE) collect(argument.value);
    },
    Directive(directive) {
      collect(directive);
    },
    VariableDefinition: () => false,
  });
  return nested;
}

/** Whether an input type holds, at any depth, an input object field with a default value. */
function hasFieldDefaults(type: GraphQLInputType, seen = new Set<GraphQLInputType>()): boolean {
  const named = getNamedType(type);
  if (!isInputObjectType(named) || seen.has(named)) return false;
  seen.add(named);
  return Object.values(named.getFields()).some((field) => field.defaultValue !== undefined || hasFieldDefaults(field.type, seen));
}
