import { createRequire } from 'node:module';
import {
  getNamedType,
  getVariableValues,
  isObjectType,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  Kind,
  type DirectiveNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import type * as QueryComplexityModule from 'graphql-query-complexity';
import type { ComplexityEstimator } from 'graphql-query-complexity';
import { Extensions } from 'type-graphql';
import { errors } from '../errors/index.js';
import { limitRefusal } from './limit-refusals.js';
import { MAX_PAGE_LIMIT, PAGE_ITEMS_EXTENSION } from '../shared/index.js';

// graphql-query-complexity (a dependency of type-graphql) ships an ES module build
// that imports graphql's .mjs files, while graphql (no `exports` map) loads as
// CommonJS everywhere else here: two copies whose type checks do not recognise
// each other's schema objects. Its CommonJS build shares our copy of graphql.
const { getComplexity, fieldExtensionsEstimator, simpleEstimator } = createRequire(import.meta.url)(
  'graphql-query-complexity',
) as typeof QueryComplexityModule;

/**
 * The most an operation may cost. A field costs 1 plus its selections; a list
 * taking `limit` costs its items' selections once per item it may return (a
 * page's nextCursor once). A full page of meal menus with every field costs
 * 1,603, so three such pages fit in one request, and a thousand aliases of
 * the cheapest field do not.
 */
export const MAX_QUERY_COST = 5000;

/**
 * What a list costs for each filter that may read more records than the
 * page it answers (no index bounds it, or a search word's index entries
 * must be checked): priced by that work, not by the page's size, so that
 * at most fourteen such lists fit in one request however small their pages
 * (fewer than the 15 aliases allowed), while one full page of 100 with such
 * a filter still leaves half the limit to the rest of the request.
 */
export const SCAN_FILTER_COST = 350;

/** Names the arguments of a list that may read beyond its page (SCAN_FILTER_COST each, when given). */
export function ScanFilters(...names: string[]): MethodDecorator & PropertyDecorator & ClassDecorator {
  return Extensions({ scanFilters: names });
}

function scanFiltersOf(field: GraphQLField<unknown, unknown>): readonly string[] {
  return (field.extensions?.scanFilters as readonly string[] | undefined) ?? [];
}

/**
 * A field with a `limit` argument (every paginated list) returns up to that
 * many items. Of a page (`{items, nextCursor}`), the items' selection counts
 * once per item and the rest once (nextCursor, the items list itself); of
 * any other list, the whole selection once per item. Each filter that may
 * read past the page adds SCAN_FILTER_COST.
 */
const pagedListEstimator: ComplexityEstimator = ({ args, field, childComplexity, node, context }) => {
  if (!('limit' in args)) return undefined;
  // Out of range is refused by the resolver anyway: cost it at the bounds, never below one item.
  const limit = typeof args.limit === 'number' ? Math.min(Math.max(args.limit, 1), MAX_PAGE_LIMIT) : MAX_PAGE_LIMIT;
  const scans = scanFiltersOf(field).filter((name) => args[name] !== undefined && args[name] !== null).length;
  if (!isPage(field.type)) return 1 + limit * childComplexity + scans * SCAN_FILTER_COST;
  const { childrenOf, itemCosts } = context as CostContext;
  const perItem = (childrenOf.get(node) ?? []).reduce((sum, child) => sum + (itemCosts.get(child) ?? 0), 0);
  // childComplexity holds each item once already.
  return 1 + childComplexity + (limit - 1) * perItem + scans * SCAN_FILTER_COST;
};

function isPage(type: GraphQLOutputType): boolean {
  const named = getNamedType(type);
  return isObjectType(named) && Object.values(named.getFields()).some((field) => field.extensions?.[PAGE_ITEMS_EXTENSION]);
}

/** The items of a page (PAGE_ITEMS_EXTENSION): costed as any list, its item's selection kept for the page's estimator. */
const pageItemsEstimator: ComplexityEstimator = ({ field, node, childComplexity, context }) => {
  if (!field.extensions?.[PAGE_ITEMS_EXTENSION]) return undefined;
  (context as CostContext).itemCosts.set(node, childComplexity);
  return 1 + childComplexity;
};

/** The field extension naming the root fields (`Query.apiKey`) under which a field is ever filled (FilledOnlyUnder). */
const FILLED_ONLY_UNDER = 'filledOnlyUnder';

/**
 * Declares that a field answers null everywhere but under these root fields
 * (`'Query.apiKey'`): the cost rule prices it there by its selection, and
 * anywhere else as the null it is (1), so a list of records may select it.
 */
export function FilledOnlyUnder(...rootFields: `${'Query' | 'Mutation'}.${string}`[]): MethodDecorator & PropertyDecorator {
  return Extensions({ [FILLED_ONLY_UNDER]: rootFields });
}

/** What the estimators know of the operation besides one field: which root fields each field node is reached under. */
interface CostContext {
  rootsOf: ReadonlyMap<FieldNode, ReadonlySet<string>>;
  /** The field nodes selected right under each field node, fragments followed. */
  childrenOf: ReadonlyMap<FieldNode, readonly FieldNode[]>;
  /** The cost of one item of each page's `items` node, filled as the estimators run (children before their parent). */
  itemCosts: Map<FieldNode, number>;
}

/** A field never filled where it is selected answers null: it costs 1, whatever its selection. */
const unfilledFieldEstimator: ComplexityEstimator = ({ field, node, context }) => {
  const fillers = field.extensions?.[FILLED_ONLY_UNDER] as readonly string[] | undefined;
  if (!fillers) return undefined;
  const roots = (context as CostContext | undefined)?.rootsOf.get(node);
  return roots && [...roots].some((root) => fillers.includes(root)) ? undefined : 1;
};

/** First answer wins: fields never filled there, a page's items, paged lists, then a `complexity` set on a TypeGraphQL field, then 1 per field. */
export const queryCostEstimators: ComplexityEstimator[] = [
  unfilledFieldEstimator,
  pageItemsEstimator,
  pagedListEstimator,
  fieldExtensionsEstimator(),
  simpleEstimator({ defaultComplexity: 1 }),
];

/**
 * For each field node of the operation, the root fields (`Query.apiKey`) it
 * is reached under and the field nodes right under it, fragments followed.
 * A fragment spread under several roots counts under each, so a field is
 * priced as filled if any of them fills it.
 */
function operationShape(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): Omit<CostContext, 'itemCosts'> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const rootType = schema.getRootType(operation.operation)?.name ?? 'Query';
  const rootsOf = new Map<FieldNode, Set<string>>();
  const childrenOf = new Map<FieldNode, FieldNode[]>();
  const walk = (selections: SelectionSetNode | undefined, parent: FieldNode | null, root: string | null, spreading: ReadonlySet<string>) => {
    for (const selection of selections?.selections ?? []) {
      if (selection.kind === Kind.FIELD) {
        const under = root ?? `${rootType}.${selection.name.value}`;
        let roots = rootsOf.get(selection);
        if (!roots) rootsOf.set(selection, (roots = new Set()));
        roots.add(under);
        if (parent) {
          const siblings = childrenOf.get(parent) ?? [];
          if (!siblings.includes(selection)) siblings.push(selection);
          childrenOf.set(parent, siblings);
        }
        walk(selection.selectionSet, selection, under, spreading);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        walk(selection.selectionSet, parent, root, spreading);
      } else if (!spreading.has(selection.name.value)) {
        // Validation refuses cycles of fragments; the guard keeps a walk finite anyway.
        walk(fragments.get(selection.name.value)?.selectionSet, parent, root, new Set([...spreading, selection.name.value]));
      }
    }
  };
  walk(operation.selectionSet, null, null, new Set());
  return { rootsOf, childrenOf };
}

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
    context: { ...operationShape(schema, document, operation), itemCosts: new Map() } satisfies CostContext,
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
    throw limitRefusal('cost', errors.documentRefused(`This operation is too large to cost: ${(err as Error).message}`));
  }
  if (cost !== null && cost > max) {
    throw limitRefusal('cost', errors.documentRefused(`This operation costs ${cost}, over the limit of ${max} (a list costs its selection once per item of its limit; aliases add up)`));
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
