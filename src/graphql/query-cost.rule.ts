import { createRequire } from 'node:module';
import {
  getVariableValues,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  Kind,
  type DirectiveNode,
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValueNode,
} from 'graphql';
import type * as QueryComplexityModule from 'graphql-query-complexity';
import type { ComplexityEstimator } from 'graphql-query-complexity';
import { Extensions } from 'type-graphql';
import { errors } from '../errors/index.js';
import { MAX_PAGE_LIMIT } from '../shared/pagination.js';

// graphql-query-complexity (a dependency of type-graphql) ships an ES module build
// that imports graphql's .mjs files, while graphql (no `exports` map) loads as
// CommonJS everywhere else here: two copies whose type checks do not recognise
// each other's schema objects. Its CommonJS build shares our copy of graphql.
const { getComplexity, fieldExtensionsEstimator, simpleEstimator } = createRequire(import.meta.url)(
  'graphql-query-complexity',
) as typeof QueryComplexityModule;

/**
 * The most an operation may cost. A field costs 1 plus its selections; a list
 * taking `limit` costs its selections once per item it may return. A full page
 * of meal menus with every field costs about 1,600, so three such pages fit in
 * one request, and a thousand aliases of the cheapest field do not.
 */
export const MAX_QUERY_COST = 5000;

/**
 * What a list costs for each filter that may read more records than the
 * page it answers (no index bounds it, or a search word's index entries
 * must be checked): priced by that work, not by the page's size, so at most
 * twelve such lists fit in one request however small their pages.
 */
export const SCAN_FILTER_COST = 400;

/** Names the arguments of a list that may read beyond its page (SCAN_FILTER_COST each, when given). */
export function ScanFilters(...names: string[]): MethodDecorator & PropertyDecorator & ClassDecorator {
  return Extensions({ scanFilters: names });
}

function scanFiltersOf(field: GraphQLField<unknown, unknown>): readonly string[] {
  return (field.extensions?.scanFilters as readonly string[] | undefined) ?? [];
}

/** A field with a `limit` argument (every paginated list) returns up to that many items. */
const pagedListEstimator: ComplexityEstimator = ({ args, childComplexity, field }) => {
  if (!('limit' in args)) return undefined;
  // Out of range is refused by the resolver anyway: cost it at the bounds, never below one item.
  const limit = typeof args.limit === 'number' ? Math.min(Math.max(args.limit, 1), MAX_PAGE_LIMIT) : MAX_PAGE_LIMIT;
  const scans = scanFiltersOf(field).filter((name) => args[name] !== undefined && args[name] !== null).length;
  return 1 + limit * childComplexity + scans * SCAN_FILTER_COST;
};

/** First answer wins: paged lists, then a `complexity` set on a TypeGraphQL field, then 1 per field. */
export const queryCostEstimators: ComplexityEstimator[] = [
  pagedListEstimator,
  fieldExtensionsEstimator(),
  simpleEstimator({ defaultComplexity: 1 }),
];

export interface CostedOperation {
  schema: GraphQLSchema;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  variables?: Record<string, unknown> | null;
}

/**
 * What an operation costs with these variables, or null when the variables do
 * not coerce (execution then refuses them itself and runs nothing). Throws
 * past the library's node count (fragments spread into fragments).
 */
export function queryCost({ schema, document, operation, variables }: CostedOperation): number | null {
  if (getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {}).errors) return null;
  return getComplexity({
    schema,
    query: document,
    operationName: operation.name?.value,
    // Raw, not coerced: the library coerces them again (a coerced DateTime would not parse twice).
    variables: variables ?? {},
    estimators: queryCostEstimators,
  });
}

/**
 * Refuses an operation that costs more than `max` (aliases repeating an
 * expensive list, or one page nested in many): GRAPHQL_VALIDATION_FAILED, a
 * 400 like every other refused document, saying the cost and the limit.
 * Runs once the variables are known, since `limit` is usually one.
 */
export function assertQueryCost(operation: CostedOperation, max = MAX_QUERY_COST): void {
  if (withinLimitWhateverVariables.has(operation.operation)) return;
  let cost: number | null;
  try {
    cost = queryCost(operation);
  } catch (err) {
    throw errors.documentRefused(`This operation is too large to cost: ${(err as Error).message}`);
  }
  if (cost !== null && cost > max) {
    throw errors.documentRefused(`This operation costs ${cost}, over the limit of ${max} (a list costs its selection once per item of its limit; aliases add up)`);
  }
  if (cost !== null && !costDependsOnVariables(operation.schema, operation.document)) withinLimitWhateverVariables.add(operation.operation);
}

/**
 * Operations found within the limit whose cost no variable can change.
 * Apollo hands the same parsed document to every request with the same
 * text, so a repeated operation is costed once (costing was 7% of a
 * GraphQL read's CPU). Held weakly: gone with Apollo's document cache entry.
 */
const withinLimitWhateverVariables = new WeakSet<OperationDefinitionNode>();

/**
 * Whether variables may change the cost: a `limit` given by a variable (a
 * list is costed at its limit; a literal or the default is fixed), a field
 * costed by a function of its own (its `complexity`), or `@include` /
 * `@skip` with a variable condition (which may drop a selection). Looks at
 * the whole document, fragments included.
 */
function costDependsOnVariables(schema: GraphQLSchema, document: DocumentNode): boolean {
  const typeInfo = new TypeInfo(schema);
  let depends = false;
  const byVariable = (node: FieldNode | DirectiveNode, name: string) =>
    node.arguments?.some((arg) => arg.name.value === name && containsVariable(arg.value)) ?? false;
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const field = typeInfo.getFieldDef();
        if (!field || field.extensions?.complexity !== undefined) depends = true;
        else if (field.args.some((arg) => arg.name === 'limit') && ['limit', ...scanFiltersOf(field)].some((name) => byVariable(node, name))) depends = true;
      },
      Directive(node) {
        if ((node.name.value === 'include' || node.name.value === 'skip') && byVariable(node, 'if')) depends = true;
      },
    }),
  );
  return depends;
}

function containsVariable(value: ValueNode): boolean {
  if (value.kind === Kind.VARIABLE) return true;
  if (value.kind === Kind.LIST) return value.values.some(containsVariable);
  if (value.kind === Kind.OBJECT) return value.fields.some((field) => containsVariable(field.value));
  return false;
}
