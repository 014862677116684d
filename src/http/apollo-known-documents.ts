import type { ApolloServerPlugin } from '@apollo/server';
import { getOperationAST, type DocumentNode, type ExecutionResult, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { Request } from 'express';
import { LRUCache } from 'lru-cache';
import { operationLabel, type Execute } from '../graphql/index.js';
import { requestScope, type RequestScope } from './request-scope.js';

/**
 * A POST /graphql of a document Apollo has already parsed and validated,
 * answered without Apollo's request pipeline when it runs without errors.
 * Apollo's own work around execution (a SHA-256 of the text, two Accept
 * negotiations, the CSRF check's content-type parse, a dozen plugin hook
 * rounds of promises) was about a tenth of a single read's CPU, and none of
 * it changes a successful answer: that is Apollo's `{"data":…}` plus a
 * newline, status 200, `Content-Type: application/json; charset=utf-8`.
 *
 * Everything else goes to Apollo as before: any other method, body shape or
 * Accept header, a document not yet validated, an operation the checks
 * before execution refuse (nothing has run then). An operation that ran and
 * answered with errors (or threw) is handed to Apollo with its outcome, which
 * the executor returns instead of running it again: Apollo formats the
 * errors and sets status and headers, as for any request.
 */
export interface KnownDocuments {
  /** Remembers each document that passed Apollo's validation, by its text. */
  plugin: ApolloServerPlugin;
  /**
   * Answers the request, or settles it and returns false (then Apollo must
   * answer it, and `executor` finds the outcome), or returns false untouched.
   */
  answer(req: Request, res: { statusCode: number; setHeader(name: string, value: string | number): unknown; end(body: string): unknown }): Promise<boolean>;
  /** The executor Apollo runs: the outcome already settled for this request, else `execute`. */
  executor: Execute;
}

export interface KnownDocumentsOptions {
  schema: GraphQLSchema;
  execute: Execute;
  /** The checks Apollo's plugins make once the operation is resolved (didResolveOperation); throw to refuse. */
  assertRunnable(operation: RunnableOperation): void;
}

export interface RunnableOperation {
  schema: GraphQLSchema;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  operationName?: string;
  variables?: Record<string, unknown>;
}

/**
 * Heap a parsed document holds per token of its text: the token itself (the
 * document's `loc` keeps the whole list) and its share of the syntax tree,
 * 280-500 bytes measured across document shapes. Counted by characters, as
 * before, a dense document (a field repeated, `{ id id id ... }`) held 164
 * bytes a character against an estimate of 100.
 */
const HEAP_BYTES_PER_TOKEN = 640;
/** The heap remembered documents may hold, at most (Apollo's own parsed-document cache is 30 MiB). */
const KNOWN_DOCUMENTS_BYTES = 32 * 1024 * 1024;

/**
 * What a remembered document costs the heap, at most: its text (two bytes a
 * character at worst) and its tokens (test/http/known-documents-heap.test.ts
 * measures both against the heap). A document without `loc` keeps no token
 * list; it is counted as if it had one token per character.
 */
export function knownDocumentBytes(text: string, document: DocumentNode): number {
  let tokens = 0;
  for (let token = document.loc?.startToken ?? null; token; token = token.next) tokens++;
  return 2 * text.length + HEAP_BYTES_PER_TOKEN * (document.loc ? tokens : Math.max(text.length, 1));
}
/** The fields a request body may have to be answered here (`extensions` goes to Apollo). */
const BODY_FIELDS = new Set(['query', 'variables', 'operationName']);
/** Accept headers for which Apollo answers `application/json; charset=utf-8` (none sent: the same). */
const JSON_ACCEPTS = new Set([undefined, '*/*', 'application/json']);
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

type Outcome = { result: ExecutionResult } | { thrown: unknown };

export function knownDocuments({ schema, execute, assertRunnable }: KnownDocumentsOptions): KnownDocuments {
  const documents = new LRUCache<string, DocumentNode>({
    maxSize: KNOWN_DOCUMENTS_BYTES,
    sizeCalculation: (document, text) => knownDocumentBytes(text, document),
  });
  // Outcomes for Apollo to answer, by the request's scope (the executor runs inside it).
  const settled = new WeakMap<RequestScope, Outcome>();

  return {
    plugin: {
      async requestDidStart() {
        return {
          // Reached only once the document parsed and passed every validation rule.
          async didResolveOperation({ source, document, operation }) {
            if (!documents.has(source)) documents.set(source, document);
            const scope = requestScope.getStore();
            if (scope && operation) scope.operation = operationLabel(schema, document, operation);
          },
        };
      },
    },

    async answer(req, res) {
      const scope = requestScope.getStore();
      const body = req.body as Record<string, unknown> | undefined;
      if (!scope || req.method !== 'POST' || !JSON_ACCEPTS.has(req.headers.accept) || !isRecord(body)) return false;
      for (const key in body) if (!BODY_FIELDS.has(key)) return false;
      const { query, variables, operationName } = body;
      if (typeof query !== 'string' || !(variables == null || isRecord(variables)) || !(operationName == null || typeof operationName === 'string')) return false;
      const document = documents.get(query);
      const operation = document && getOperationAST(document, operationName ?? undefined);
      if (!document || !operation) return false;
      scope.operation = operationLabel(schema, document, operation);
      const given = variables ?? undefined;
      try {
        assertRunnable({ schema, document, operation, operationName: operationName ?? undefined, variables: given });
      } catch {
        return false;
      }
      // As Apollo hands the context to its executor: a shallow copy per request.
      const context = scope.context as object;
      const contextValue = Object.assign(Object.create(Object.getPrototypeOf(context) as object | null) as object, context);
      let result: ExecutionResult;
      try {
        result = await execute({ schema, document, contextValue, variableValues: given, operationName: operationName ?? undefined });
      } catch (thrown) {
        settled.set(scope, { thrown });
        return false;
      }
      if (result.errors?.length) {
        settled.set(scope, { result });
        return false;
      }
      // Apollo's serialisation of a single result: its fields in this order, then a newline.
      const text = `${JSON.stringify({ errors: undefined, data: result.data, extensions: result.extensions })}\n`;
      res.setHeader('content-type', JSON_CONTENT_TYPE);
      res.statusCode = 200;
      res.setHeader('content-length', Buffer.byteLength(text));
      res.end(text);
      return true;
    },

    executor: async (args) => {
      const scope = requestScope.getStore();
      const outcome = scope && settled.get(scope);
      if (!outcome) return execute(args);
      settled.delete(scope);
      if ('thrown' in outcome) throw outcome.thrown;
      return outcome.result;
    },
  };
}

/** A JSON object (what Apollo takes for a body, variables or extensions). */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
