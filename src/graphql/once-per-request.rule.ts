import { GraphQLError, type ValidationRule } from 'graphql';

/**
 * A validation rule: each listed root field (`Mutation.login`) may be selected
 * at most once per GraphQL request. Without it, aliases (`a: login(…) b:
 * login(…) …`) turn one request into thousands of password checks: a
 * brute-force multiplier and, with Argon2id's cost, a denial of service.
 * REST runs one fixed operation per call, so only /graphql needs the rule.
 */
export function atMostOncePerRequest(fields: readonly `${'Query' | 'Mutation'}.${string}`[]): ValidationRule {
  return (context) => {
    const seen = new Map<string, number>();
    return {
      Field(node) {
        const name = `${context.getParentType()?.name}.${node.name.value}`;
        if (!fields.includes(name as (typeof fields)[number])) return;
        const count = (seen.get(name) ?? 0) + 1;
        seen.set(name, count);
        if (count === 2) {
          context.reportError(new GraphQLError(`${node.name.value} may be selected only once per request`, { nodes: node }));
        }
      },
    };
  };
}
