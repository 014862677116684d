import {
  getOperationAST,
  Kind,
  parse,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { limitedParseOptions } from './limits.js';
import { fieldNodesOf } from './selection.js';

/**
 * The operations of the schema a GraphQL document calls, as schema
 * coordinates (`Query.apiKey`, `Mutation.login`): the root fields of every
 * operation in it, through fragments. Every one, not only the one
 * `operationName` picks: validation reads the arguments of the whole
 * document. Read from the text alone, before validation, so a check of the
 * caller can come before any argument is read. A root field the schema does
 * not have (`__typename`, a misspelling) is no operation: validation answers
 * it. Undefined when the text does not parse (graphql-js's own answer then
 * stands).
 */
export function calledOperations(schema: GraphQLSchema, source: string): readonly string[] | undefined {
  let document: DocumentNode;
  try {
    document = parse(source, limitedParseOptions);
  } catch {
    return undefined;
  }
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const fragments = new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((fragment) => [fragment.name.value, fragment]),
  );
  const called = new Set<string>();
  for (const operation of operations) {
    const rootType = schema.getRootType(operation.operation);
    if (rootType) collectRootFields(schema, operation.selectionSet, rootType, fragments, new Set(), called);
  }
  // Validation also reads the arguments inside fragments no operation spreads, and in fragments on
  // a root type: such a fragment's root fields are called too, and an unused fragment counts as a
  // call of something that is never open.
  const used = spreadFragments(operations.map((operation) => operation.selectionSet), fragments);
  for (const [name, fragment] of fragments) {
    const rootType = rootTypeNamed(schema, fragment.typeCondition.name.value);
    if (rootType) collectRootFields(schema, fragment.selectionSet, rootType, fragments, new Set([name]), called);
    if (!used.has(name)) called.add(`${UNUSED_FRAGMENT}.${name}`);
  }
  return [...called];
}

/**
 * The operations of the schema the one operation GraphQL runs calls (the one
 * `operationName` names, or the only one), as `calledOperations` names them.
 * What a request does, as opposed to all it mentions: an `Idempotency-Key`
 * keeps the answer of the executed create, not of one merely written in
 * another operation of the document. Empty when no operation would run (the
 * text does not parse, the name matches none, several and no name).
 */
export function executedOperations(schema: GraphQLSchema, source: string, operationName?: string): readonly string[] {
  const executed = executedOperation(source, operationName);
  const rootType = executed && schema.getRootType(executed.operation.operation);
  if (!executed || !rootType) return [];
  const called = new Set<string>();
  collectRootFields(schema, executed.operation.selectionSet, rootType, executed.fragments, new Set(), called);
  return [...called];
}

/**
 * The keys under which the answer of the executed operation's root fields
 * holds `field` (`ticket`, or `t` for `t: ticket`), through fragments: a
 * secret is found in an answer under every name the client gave it.
 */
export function responseKeysOf(source: string, operationName: string | undefined, field: string): string[] {
  const executed = executedOperation(source, operationName);
  if (!executed) return [field];
  const fragmentNamed = (name: string) => executed.fragments.get(name);
  const rootFields = fieldNodesOf([executed.operation.selectionSet], fragmentNamed);
  const selected = fieldNodesOf(rootFields.map((node) => node.selectionSet), fragmentNamed).filter((node) => node.name.value === field);
  return [...new Set([field, ...selected.map((node) => node.alias?.value ?? field)])];
}

/** The operation GraphQL runs (getOperationAST) and the document's fragments; null when none would run. */
function executedOperation(source: string, operationName: string | undefined) {
  let document: DocumentNode;
  try {
    document = parse(source, limitedParseOptions);
  } catch {
    return null;
  }
  const operation = getOperationAST(document, operationName);
  if (!operation) return null;
  const fragments = new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((fragment) => [fragment.name.value, fragment]),
  );
  return { operation, fragments };
}

/** Labels already made, by operation node (Apollo's and the known documents' caches hand the same nodes back). */
const operationLabels = new WeakMap<OperationDefinitionNode, string>();

/**
 * A validated operation as one bounded label (metrics): the coordinate of
 * its one root field (`Query.mealMenus`, `Query.__schema`), `Query.*` when
 * it has several, `unknown` when none. Never a name the client chose: only
 * fields the schema has, so the labels are as many as its operations.
 */
export function operationLabel(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): string {
  let label = operationLabels.get(operation);
  if (label !== undefined) return label;
  const rootType = schema.getRootType(operation.operation);
  const called = new Set<string>();
  if (rootType) {
    const fragments = new Map(
      document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((fragment) => [fragment.name.value, fragment]),
    );
    collectRootFields(schema, operation.selectionSet, rootType, fragments, new Set(), called);
    // Introspection (GraphiQL, codegen): its meta fields, which the schema's field map lacks.
    for (const selection of operation.selectionSet.selections) {
      if (selection.kind === Kind.FIELD && INTROSPECTION_FIELDS.has(selection.name.value)) called.add(`${rootType.name}.${selection.name.value}`);
    }
  }
  label = called.size === 1 ? [...called][0]! : called.size > 1 && rootType ? `${rootType.name}.*` : 'unknown';
  operationLabels.set(operation, label);
  return label;
}

const INTROSPECTION_FIELDS: ReadonlySet<string> = new Set(['__schema', '__type']);

/** The coordinate of a fragment no operation spreads: never an open operation. */
export const UNUSED_FRAGMENT = '(unused fragment)';

function rootTypeNamed(schema: GraphQLSchema, name: string): GraphQLObjectType | undefined {
  return [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].find((type) => type?.name === name) ?? undefined;
}

/** Names of the fragments the selection sets spread, at any depth and through other fragments. */
function spreadFragments(sets: readonly SelectionSetNode[], fragments: ReadonlyMap<string, FragmentDefinitionNode>): Set<string> {
  const found = new Set<string>();
  const pending = [...sets];
  while (pending.length > 0) {
    for (const selection of pending.pop()!.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        if (found.has(name) || !fragment) continue;
        found.add(name);
        pending.push(fragment.selectionSet);
      } else if (selection.selectionSet) {
        pending.push(selection.selectionSet);
      }
    }
  }
  return found;
}

function collectRootFields(
  schema: GraphQLSchema,
  selections: SelectionSetNode,
  rootType: GraphQLObjectType,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  visited: Set<string>,
  called: Set<string>,
): void {
  for (const selection of selections.selections) {
    if (selection.kind === Kind.FIELD) {
      const name = selection.name.value;
      if (Object.hasOwn(rootType.getFields(), name)) called.add(`${rootType.name}.${name}`);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      // `... on Mutation` inside a query is refused by validation, but its arguments are read.
      const typed = selection.typeCondition ? rootTypeNamed(schema, selection.typeCondition.name.value) : undefined;
      collectRootFields(schema, selection.selectionSet, typed ?? rootType, fragments, visited, called);
    } else {
      const name = selection.name.value;
      const fragment = fragments.get(name);
      // A cycle or an unknown fragment is validation's to refuse; it selects nothing more here.
      if (!fragment || visited.has(name)) continue;
      visited.add(name);
      collectRootFields(schema, fragment.selectionSet, rootType, fragments, visited, called);
    }
  }
}
