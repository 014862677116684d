/**
 * The GraphQL mechanisms, generic (no area): what the composition root, the
 * HTTP edge and the areas' resolvers use of them.
 */

// The schema: built once from every area's resolvers, written to schema/schema.graphql.
export { buildAppSchema, renderSchemaFile, schemaFilePath } from './build-schema.js';
export { JSONObject } from './scalars.js';
export { buildJsonSchemas, mutationInputName, SCHEMA_REF_PREFIX, type JsonSchema, type JsonSchemaOptions } from './json-schema.js';

// Declared by resolvers and inputs: cost of list filters, once-per-request arguments, the selection read.
export { assertQueryCost, FilledOnlyUnder, ScanFilters } from './query-cost.rule.js';
export { OncePerRequest } from './once-per-request.rule.js';
export { selectedFieldNames } from './selection.js';
export { isOpenOperation, permissionsOfOperation } from './open-operations.js';

// Serving documents (Apollo at /graphql, SOFA's REST routes): limits, compiled execution, refusals of input.
export { createDocumentGuard, GRAPHQL_LIMITS, limitedParseOptions, limitRules } from './limits.js';
export { refusedLimit, type GraphQLLimit } from './limit-refusals.js';
export { createCompiledExecute, type Execute } from './compiled-execution.js';
export { assertOperationInput, everyFailingField } from './every-failing-field.plugin.js';
export { readArguments, type ArgumentReading } from './input-refusal.js';
export { argumentRuleProblems } from './argument-rules.js';
export { expectation, suggestionAmong, unknownFieldProblem, valueRuleOf } from './coercion-problems.js';
export { calledOperations, executedOperations, operationLabel, responseKeysOf } from './called-operations.js';
