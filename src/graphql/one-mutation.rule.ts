import { GraphQLError, type ValidationRule } from 'graphql';
import { fieldNodesOf } from './selection.js';

/**
 * A validation rule: a mutation operation selects one mutation field. The
 * service answers a request with the status of its most severe error and,
 * every mutation field being non-null, `data: null`; graphql-js runs the
 * fields of a mutation one after the other, so in `a: updateUser(…) b:
 * deleteMealMenu(…)` a refused `b` would hide that `a` had changed data, and
 * a refusal must change nothing. One change per request keeps both true.
 * Fields are counted as written (fragments expanded, `@skip`/`@include` not
 * evaluated); `__typename` does not count.
 */
export function oneMutationPerRequest(): ValidationRule {
  return (context) => ({
    OperationDefinition(node) {
      if (node.operation !== 'mutation') return;
      const fields = fieldNodesOf([node.selectionSet], (name) => context.getFragment(name) ?? undefined)
        .map((field) => field.name.value)
        .filter((name) => name !== '__typename');
      if (fields.length <= 1) return;
      context.reportError(
        new GraphQLError(
          `A mutation request makes one change: it selects ${fields.length} mutation fields (${fields.join(', ')}). ` +
            'Send each as a request of its own, so that a refusal of one never hides what another changed.',
          { nodes: node },
        ),
      );
    },
  });
}
