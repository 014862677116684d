import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLError } from 'graphql';
import { operationInputRefusal, type OperationInput } from './input-refusal.js';

/**
 * /graphql's side of "every failing field at once" (input-refusal.ts): a
 * variable that fails coercion, or an argument literal that fails
 * validation, is answered with one BAD_USER_INPUT that also names the rules
 * the other arguments break.
 */
export function everyFailingField(): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async validationDidStart({ schema, document, request }) {
          return async (validationErrors) => {
            if (!validationErrors?.length) return;
            const refusal = operationInputRefusal({
              schema,
              document,
              operationName: request.operationName,
              variables: request.variables,
              validationErrors: validationErrors as readonly GraphQLError[],
            });
            // Apollo answers the very array it handed this hook (and calls the hook without
            // awaiting it: this runs synchronously): the argument errors become the one refusal.
            if (refusal) (validationErrors as GraphQLError[]).splice(0, validationErrors.length, refusal);
          };
        },
        async didResolveOperation({ schema, document, request }) {
          assertOperationInput({ schema, document, operationName: request.operationName, variables: request.variables });
        },
      };
    },
  };
}

/** Before execution, where graphql-js would stop at the variables and type-graphql's rules never run: throws the one refusal. */
export function assertOperationInput(input: Omit<OperationInput, 'validationErrors'>): void {
  const refusal = operationInputRefusal(input);
  if (refusal) throw refusal;
}
