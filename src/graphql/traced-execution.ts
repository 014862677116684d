import { defaultFieldResolver, getOperationAST, type ExecutionArgs, type ExecutionResult, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { inChildSpan, SpanStatusCode, tracingOn } from '../shared/index.js';

/** compiled-execution.ts's Execute (restated: that file wraps its runs here). */
type Execute = (args: ExecutionArgs) => Promise<ExecutionResult>;

/**
 * The GraphQL spans of a request, both surfaces (REST runs the same
 * operations through SOFA), when tracing is on (shared/tracing.ts):
 * - the operation: `query mealMenus`, with `graphql.operation.type` and
 *   `graphql.operation.name` (GraphQL semantic conventions);
 * - each root field's resolver below it: `Query.mealMenus`, with
 *   `graphql.field.name`, `graphql.field.path`, `graphql.field.type` (the
 *   names OpenTelemetry's graphql instrumentation uses). Nested fields are
 *   plain property reads and get none.
 * `graphql.document` is not recorded, nor are variables or arguments: a
 * document may spell a password or a key in a literal.
 */
export function traceOperations(execute: Execute): Execute {
  return (args) => {
    if (!tracingOn()) return execute(args);
    const operation = getOperationAST(args.document, args.operationName);
    const type = operation?.operation ?? 'query';
    const name = operation?.name?.value;
    // The GraphQL conventions are still incubating: their names are written out here.
    const attributes = { 'graphql.operation.type': type, ...(name ? { 'graphql.operation.name': name } : {}) };
    return inChildSpan(name ? `${type} ${name}` : type, attributes, async (span) => {
      const result = await execute(args);
      // Errors in the answer (a refusal, a resolver's throw): the operation failed, said without their text.
      if (result.errors?.length) span?.setStatus({ code: SpanStatusCode.ERROR });
      return result;
    });
  };
}

/** Wraps the resolver of every Query and Mutation field (once, at schema build) in its span. */
export function traceRootResolvers(schema: GraphQLSchema): GraphQLSchema {
  for (const root of [schema.getQueryType(), schema.getMutationType()]) {
    for (const field of Object.values(root?.getFields() ?? {})) {
      const resolve: GraphQLFieldResolver<unknown, unknown> = field.resolve ?? defaultFieldResolver;
      const spanName = `${root!.name}.${field.name}`;
      const fieldType = String(field.type);
      field.resolve = (source, args, context, info) =>
        tracingOn()
          ? inChildSpan(spanName, { 'graphql.field.name': field.name, 'graphql.field.path': String(info.path.key), 'graphql.field.type': fieldType }, () =>
              resolve(source, args, context, info),
            )
          : resolve(source, args, context, info);
    }
  }
  return schema;
}
