import { GraphQLError, type ValidationRule } from 'graphql';
import { Extensions } from 'type-graphql';

const ONCE_PER_REQUEST = 'oncePerRequest';

/**
 * Marks an operation that costs a password hash (sign-in, a user's create or
 * update): a GraphQL request may select it at most once. Declared on the
 * resolver method, next to `@Mutation`.
 */
export function OncePerRequest(): MethodDecorator {
  return Extensions({ [ONCE_PER_REQUEST]: true });
}

/**
 * A validation rule: a field marked `@OncePerRequest()` may be selected at
 * most once per GraphQL request. Without it, aliases (`a: login(…) b:
 * login(…) …`) turn one request into thousands of Argon2id computations: a
 * brute-force multiplier and a denial of service. REST runs one fixed
 * operation per call, so only /graphql needs the rule.
 */
export function atMostOncePerRequest(): ValidationRule {
  return (context) => {
    const seen = new Map<string, number>();
    return {
      Field(node) {
        if (context.getFieldDef()?.extensions?.[ONCE_PER_REQUEST] !== true) return;
        const name = `${context.getParentType()?.name}.${node.name.value}`;
        const count = (seen.get(name) ?? 0) + 1;
        seen.set(name, count);
        if (count === 2) {
          context.reportError(new GraphQLError(`${node.name.value} may be selected only once per request`, { nodes: node }));
        }
      },
    };
  };
}
