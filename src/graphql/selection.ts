import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/**
 * The names of the fields a resolver's result is asked for (one level down,
 * through inline fragments and fragment spreads), so a resolver can leave
 * unasked data unread. A superset on purpose: `@skip`/`@include` and type
 * conditions are not evaluated, so a field is never missing from the answer
 * for having been left out here; at worst something is read that is not sent.
 */
export function selectedFieldNames(info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>): Set<string> {
  const names = new Set<string>();
  const seenFragments = new Set<string>();
  const visit = (selectionSet: SelectionSetNode | undefined): void => {
    for (const selection of selectionSet?.selections ?? []) {
      if (selection.kind === Kind.FIELD) names.add(selection.name.value);
      else if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet);
      else if (!seenFragments.has(selection.name.value)) {
        // Validation refuses fragment cycles; the set only spares re-walking a fragment spread twice.
        seenFragments.add(selection.name.value);
        visit(info.fragments[selection.name.value]?.selectionSet);
      }
    }
  };
  for (const node of info.fieldNodes) visit(node.selectionSet);
  return names;
}
