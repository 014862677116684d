import { Kind, type FieldNode, type FragmentDefinitionNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/**
 * The field nodes of selection sets, through inline fragments and fragment
 * spreads (each fragment walked once: validation refuses cycles, and a
 * fragment spread twice adds nothing new). `@skip`/`@include` and type
 * conditions are not evaluated: a superset of what will run.
 */
export function fieldNodesOf(
  selectionSets: readonly (SelectionSetNode | undefined)[],
  fragmentNamed: (name: string) => FragmentDefinitionNode | undefined,
): FieldNode[] {
  const fields: FieldNode[] = [];
  const seenFragments = new Set<string>();
  const visit = (selectionSet: SelectionSetNode | undefined): void => {
    for (const selection of selectionSet?.selections ?? []) {
      if (selection.kind === Kind.FIELD) fields.push(selection);
      else if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet);
      else if (!seenFragments.has(selection.name.value)) {
        seenFragments.add(selection.name.value);
        visit(fragmentNamed(selection.name.value)?.selectionSet);
      }
    }
  };
  for (const selectionSet of selectionSets) visit(selectionSet);
  return fields;
}

/**
 * The names of the fields a resolver's result is asked for (one level down),
 * so a resolver can leave unasked data unread. A superset on purpose (see
 * fieldNodesOf): a field is never missing from the answer for having been
 * left out here; at worst something is read that is not sent.
 */
export function selectedFieldNames(info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>): Set<string> {
  const nodes = fieldNodesOf(info.fieldNodes.map((node) => node.selectionSet), (name) => info.fragments[name]);
  return new Set(nodes.map((node) => node.name.value));
}
