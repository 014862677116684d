import { createRequire } from 'node:module';
import {
  parse,
  print,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLError,
  type GraphQLSchema,
  type ParseOptions,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import type * as MaxAliasesModule from '@escape.tech/graphql-armor-max-aliases';
import type * as MaxDepthModule from '@escape.tech/graphql-armor-max-depth';
import type * as MaxDirectivesModule from '@escape.tech/graphql-armor-max-directives';
import { errors, isAppError } from '../errors/index.js';
import { limitRefusal, type GraphQLLimit } from './limit-refusals.js';
import { atMostOncePerRequest } from './once-per-request.rule.js';
import { oneMutationPerRequest } from './one-mutation.rule.js';
import { MAX_QUERY_COST } from './query-cost.rule.js';

// Loaded as CommonJS, like graphql itself here (see query-cost.rule.ts): their
// ES module builds would import a second copy of graphql under the tests' bundler.
const load = createRequire(import.meta.url);
const { maxDepthRule } = load('@escape.tech/graphql-armor-max-depth') as typeof MaxDepthModule;
const { maxAliasesRule } = load('@escape.tech/graphql-armor-max-aliases') as typeof MaxAliasesModule;
const { maxDirectivesRule } = load('@escape.tech/graphql-armor-max-directives') as typeof MaxDirectivesModule;

/**
 * The limits every GraphQL document meets, on /graphql and on the REST
 * routes SOFA runs: graphql-armor's defaults. The client operations
 * (examples/operations) and the introspection of GraphiQL, Sandbox and
 * codegen stay well under them (introspection is some 200 tokens, and
 * `__schema` does not count towards depth: graphql-js's MaxIntrospectionDepthRule bounds its nesting).
 */
export const GRAPHQL_LIMITS = {
  /** Nested selections (a fragment spread counts as one level). */
  depth: 6,
  /** Aliased fields in an operation, `__typename` aside. */
  aliases: 15,
  /** Directives in an operation. */
  directives: 50,
  /** Lexical tokens in a document, counted while parsing: a huge document costs no more than this to refuse. */
  tokens: 1000,
  /**
   * Our own cost rule (query-cost.rule.ts), at armor's default of 5000 but
   * tighter: a paged list costs its items' selection once per item of its
   * `limit`, which armor's cost rule (it knows only `first`/`last`) counts once. It
   * runs once the variables are known, since `limit` usually is one, and on
   * /graphql only: a REST route runs one fixed document, without aliases and
   * with `limit` at most 100, so its cost is the route's, not the caller's.
   */
  cost: MAX_QUERY_COST,
} as const;

/** Parse options for every client document: the token limit (graphql-js aborts the parse past it). */
export const limitedParseOptions: ParseOptions = { maxTokens: GRAPHQL_LIMITS.tokens };

/**
 * armor's rules throw out of `validate` by default; these report instead, as
 * the catalogue's GRAPHQL_VALIDATION_FAILED, without armor's misleading
 * "Syntax Error:" prefix (e.g. "Aliases limit of 15 exceeded, found 100.").
 */
function refusalReporter(limit: GraphQLLimit) {
  return (context: ValidationContext | null, error: GraphQLError): void => {
    context?.reportError(limitRefusal(limit, errors.documentRefused(error.message.replace(/^Syntax Error: /, ''))));
  };
}

const armorCallbacks = (limit: GraphQLLimit) => ({ exposeLimits: true, propagateOnRejection: false, onReject: [refusalReporter(limit)] });


/**
 * The validation rules added to graphql-js's own (`specifiedRules`) on both
 * surfaces: depth, aliases, directives, one mutation field per request and at
 * most one password hash per request.
 */
export const limitRules: readonly ValidationRule[] = [
  maxDepthRule({ ...armorCallbacks('depth'), n: GRAPHQL_LIMITS.depth }),
  maxAliasesRule({ ...armorCallbacks('aliases'), n: GRAPHQL_LIMITS.aliases }),
  maxDirectivesRule({ ...armorCallbacks('directives'), n: GRAPHQL_LIMITS.directives }),
  oneMutationPerRequest(),
  atMostOncePerRequest(),
];

/**
 * For a server that runs documents it did not parse from a client's text
 * (SOFA builds one per REST route and reuses it): the checks Apollo makes
 * before running a document, tokens included, once per distinct document.
 */
export function createDocumentGuard(schema: GraphQLSchema) {
  const validated = new WeakMap<DocumentNode, readonly GraphQLError[]>();
  return {
    /** Throws the document's first refusal, a catalogue error (GRAPHQL_PARSE_FAILED or GRAPHQL_VALIDATION_FAILED). */
    assertWithinLimits(document: DocumentNode): void {
      let found = validated.get(document);
      if (!found) {
        found = tokenErrors(document) ?? validate(schema, document, [...specifiedRules, ...limitRules]).map(asRefusal);
        validated.set(document, found);
      }
      if (found[0]) throw found[0];
    },
  };
}

/** The token limit of a document given as a tree: its printed text parsed with the limit, refused as Apollo refuses it. */
function tokenErrors(document: DocumentNode): readonly GraphQLError[] | undefined {
  try {
    parse(print(document), limitedParseOptions);
    return undefined;
  } catch (err) {
    return [errors.documentUnparsable((err as Error).message)];
  }
}

/** graphql-js's own validation errors carry no code: the catalogue's, as Apollo gives them. */
function asRefusal(error: GraphQLError): GraphQLError {
  return isAppError(error) ? error : errors.documentRefused(error.message);
}
