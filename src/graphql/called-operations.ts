import {
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
    if (rootType) collectRootFields(operation.selectionSet, rootType, fragments, new Set(), called);
  }
  return [...called];
}

function collectRootFields(
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
      collectRootFields(selection.selectionSet, rootType, fragments, visited, called);
    } else {
      const name = selection.name.value;
      const fragment = fragments.get(name);
      // A cycle or an unknown fragment is validation's to refuse; it selects nothing more here.
      if (!fragment || visited.has(name)) continue;
      visited.add(name);
      collectRootFields(fragment.selectionSet, rootType, fragments, visited, called);
    }
  }
}
