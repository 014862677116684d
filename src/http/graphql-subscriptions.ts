import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RequestHandler } from 'express';
import {
  getOperationAST,
  GraphQLError,
  parse,
  type DocumentNode,
  type ExecutionResult,
  type FormattedExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import { createHandler as createSseHandler } from 'graphql-sse/lib/use/express';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { errors, settleError, toGraphQLError } from '../errors/index.js';
import { assertOperationInput, assertQueryCost, createDocumentGuard, GRAPHQL_LIMITS, limitedParseOptions } from '../graphql/index.js';
import type { Logger } from '../logger.js';

/** What a subscription's credential is read from: the WebSocket's connection_init payload, or the SSE request's headers. */
export type SubscriptionHeaderReader = (name: string) => string | undefined;

export interface SubscriptionRequestFacts {
  ip: string;
  origin?: string;
  /** GET for a WebSocket (its upgrade request), the SSE request's method otherwise. */
  method: string;
  path: string;
  requestId: string;
  logger: Logger;
}

export interface GraphQLSubscriptionOptions<TContext> {
  schema: GraphQLSchema;
  path: string;
  /** The subscription's context: the credential resolved as a request's; throws the request's 401/403. */
  createContext(header: SubscriptionHeaderReader, facts: SubscriptionRequestFacts): Promise<TContext>;
  /** Checks a WebSocket's credential at connection_init (no use of it is counted); throws the request's 401/403. */
  checkCredential(header: SubscriptionHeaderReader, facts: SubscriptionRequestFacts): Promise<void>;
  exposeErrorDetails: boolean;
  /** Production: no "Did you mean" (errors/suggestions.ts). */
  hideSuggestions: boolean;
  logger: Logger;
  /** The largest WebSocket message read (BODY_LIMIT, as for a POST): a larger one closes the socket (1009) unread. */
  maxMessageBytes: number;
  /** A WebSocket upgrade request's client address, by the rule HTTP requests follow (TRUST_PROXY). */
  clientAddress(req: IncomingMessage): string;
  /** Results an SSE stream may have waiting for a client that does not read (EVENT_SUBSCRIPTION_BUFFER); one more disconnects it. */
  maxUnsentResults: number;
}

export interface GraphQLSubscriptions {
  /** The HTTP server's `upgrade` listener: WebSocket on `path` (graphql-transport-ws); any other upgrade is refused. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** SSE on `path` (GraphQL over SSE, distinct connections): requests that accept text/event-stream; others pass on. */
  sse: RequestHandler;
  /** Closes every WebSocket (shutdown; the streams themselves are ended by their source). */
  close(): void;
}

interface Operation {
  query?: unknown;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

/**
 * Subscriptions on /graphql: over WebSocket with the graphql-ws library and
 * over Server-Sent Events with graphql-sse. Only subscription operations are
 * served here (queries and mutations are POST /graphql's); each document
 * meets the limits and rules POST /graphql applies (token limit, depth,
 * aliases, directives, one mutation, every failing argument, cost), and
 * every error leaves in the project's GraphQL error shape. It knows no
 * credential kind: the composition root's `createContext` resolves it.
 */
export function createGraphQLSubscriptions<TContext>(options: GraphQLSubscriptionOptions<TContext>): GraphQLSubscriptions {
  const { schema, logger, exposeErrorDetails, hideSuggestions } = options;
  const guard = createDocumentGuard(schema);

  /** The document, checked as POST /graphql checks one; throws the catalogue's refusal. */
  const prepare = (operation: Operation): DocumentNode => {
    if (typeof operation.query !== 'string') throw errors.badInput('A subscription needs its document (query)');
    let document: DocumentNode;
    try {
      document = parse(operation.query, limitedParseOptions);
    } catch (err) {
      throw errors.documentUnparsable((err as Error).message);
    }
    guard.assertWithinLimits(document);
    const ast = getOperationAST(document, operation.operationName ?? undefined);
    if (!ast) throw errors.badInput('The document has no operation of that name (or several without operationName)');
    if (ast.operation !== 'subscription') {
      throw errors.badInput(`Only subscriptions are served over this transport; send a ${ast.operation} as POST ${options.path}`);
    }
    const variables = operation.variables ?? {};
    assertOperationInput({ schema, document, operationName: operation.operationName ?? undefined, variables });
    assertQueryCost({ schema, document, operation: ast, variables }, GRAPHQL_LIMITS.cost);
    return document;
  };

  const formatted = (thrown: readonly unknown[], scope: { requestId: string; logger: Logger }) =>
    thrown.map((error) => {
      const located = error as Partial<GraphQLError>;
      return toGraphQLError(settleError(error, scope), {
        requestId: scope.requestId,
        exposeDetails: exposeErrorDetails,
        hideSuggestions,
        locations: located.locations,
        path: located.path,
      });
    });
  const formatResult = (result: ExecutionResult, scope: { requestId: string; logger: Logger }): FormattedExecutionResult =>
    result.errors?.length
      ? // A refusal made before execution (SSE) is formatted already: only thrown errors are settled here.
        { ...result, errors: result.errors.map((error) => (error instanceof Error ? formatted([error], scope)[0] : error)) }
      : (result as FormattedExecutionResult);
  const asErrors = (thrown: unknown, scope: { requestId: string; logger: Logger }) =>
    formatted([thrown], scope).map((error) => new GraphQLError(error.message, { extensions: error.extensions }));

  const scopes = new WeakMap<object, { requestId: string; logger: Logger; flow?: SseFlow }>();
  /** A WebSocket's facts, from its upgrade request (the client address by the HTTP rule). */
  const socketFacts = (req: IncomingMessage, scope: { requestId: string; logger: Logger }): SubscriptionRequestFacts => ({
    ip: options.clientAddress(req),
    origin: req.headers.origin,
    method: 'GET',
    path: options.path,
    ...scope,
  });
  const sseFlows = new WeakMap<IncomingMessage, SseFlow>();

  // WebSocket: graphql-transport-ws. The credential is connection_init's payload `Authorization` (or `X-API-Key`).
  // ws reads messages up to 100 MiB by default, before any credential is checked.
  const wsServer = new WebSocketServer({ noServer: true, maxPayload: options.maxMessageBytes });
  useServer<Record<string, unknown>>(
    {
      schema,
      // A socket without a credential that holds is closed at connection_init (4401/4403, the reason
      // in words), not acknowledged to stay open; one that sends no connection_init is closed after
      // graphql-ws's 3 s (4408).
      onConnect: async (ctx) => {
        const requestId = randomUUID();
        const scope = { requestId, logger: logger.child({ requestId }) };
        try {
          await options.checkCredential(connectionHeader(ctx.connectionParams), socketFacts(ctx.extra.request, scope));
          return true;
        } catch (err) {
          const [error] = formatted([err], scope);
          const status = (error?.extensions as { http?: { status?: number } } | undefined)?.http?.status ?? 500;
          ctx.extra.socket.close(CLOSE_CODES[status] ?? 1011, closeReason(error?.message ?? 'Refused'));
          return false;
        }
      },
      onSubscribe: async (ctx, _id, payload) => {
        const requestId = randomUUID();
        const scope = { requestId, logger: logger.child({ requestId }) };
        try {
          const document = prepare(payload);
          const contextValue = await options.createContext(connectionHeader(ctx.connectionParams), socketFacts(ctx.extra.request, scope));
          scopes.set(contextValue as object, scope);
          return { schema, document, contextValue, variableValues: payload.variables, operationName: payload.operationName };
        } catch (err) {
          return asErrors(err, scope);
        }
      },
      onNext: (_ctx, _id, _payload, args, result) => formatResult(result, scopes.get(args.contextValue as object) ?? { requestId: '', logger }),
    },
    wsServer,
  );

  // SSE: GraphQL over SSE, distinct connections mode; the credential is the request's own headers.
  const sseHandler = createSseHandler<Record<PropertyKey, unknown>>({
    schema,
    onSubscribe: async (req, params) => {
      const raw = req.raw;
      const requestId = (raw.headers['x-request-id'] as string | undefined)?.slice(0, 100) || randomUUID();
      const scope = { requestId, logger: logger.child({ requestId }) };
      try {
        const document = prepare(params);
        const header: SubscriptionHeaderReader = (name) => {
          const value = raw.headers[name];
          return Array.isArray(value) ? value[0] : value;
        };
        const contextValue = await options.createContext(header, {
          ip: raw.ip ?? raw.socket.remoteAddress ?? '',
          origin: raw.get('origin') ?? undefined,
          method: raw.method,
          path: options.path,
          ...scope,
        });
        scopes.set(contextValue as object, { ...scope, flow: sseFlows.get(raw) });
        return { schema, document, contextValue: contextValue as Record<PropertyKey, unknown>, variableValues: params.variables, operationName: params.operationName };
      } catch (err) {
        // graphql-sse streams a result with `data` (null) as one `next` and `complete`.
        return { data: null, errors: formatted([err], scope) } as never;
      }
    },
    // graphql-sse sends the result as returned: formatted errors in place of the thrown ones.
    onNext: (context, _req, result) => {
      const scope = scopes.get(context as object) ?? { requestId: '', logger };
      scope.flow?.handedOut(scope.logger);
      return formatResult(result as ExecutionResult, scope) as ExecutionResult;
    },
  });

  return {
    upgrade(req, socket, head) {
      const path = (req.url ?? '').split('?')[0];
      if (path !== options.path) return void socket.destroy();
      wsServer.handleUpgrade(req, socket, head, (ws) => {
        refuseOversizeQuietly(ws, logger);
        wsServer.emit('connection', ws, req);
      });
    },
    sse: (req, res, next) => {
      if (req.path !== options.path || !req.accepts('text/event-stream') || !req.get('accept')?.includes('text/event-stream')) return next();
      sseFlows.set(req, new SseFlow(res, options.maxUnsentResults));
      sseHandler(req, res).catch(next);
    },
    close() {
      for (const client of wsServer.clients) {
        client.close(1001, 'The service is stopping');
        // A client that never answers the close frame would hold the server's close for ws's 30 s.
        setTimeout(() => client.terminate(), CLOSE_FRAME_WAIT_MS).unref();
      }
      wsServer.close();
    },
  };
}

/** How long a closing WebSocket's client has to answer the close frame before its socket is destroyed. */
const CLOSE_FRAME_WAIT_MS = 1500;

/** A header read from connection_init's payload, its name in any case. */
function connectionHeader(params: Readonly<Record<string, unknown>> | undefined): SubscriptionHeaderReader {
  return (name) => {
    const found = Object.entries(params ?? {}).find(([key]) => key.toLowerCase() === name);
    return typeof found?.[1] === 'string' ? found[1] : undefined;
  };
}

/** A refusal's HTTP status as a WebSocket close code: graphql-ws's 4401/4403; 1013 (try again later) for a rate limit or while the database is away. */
const CLOSE_CODES: Readonly<Record<number, number>> = { 401: 4401, 403: 4403, 429: 1013, 503: 1013 };

/** A close reason is at most 123 bytes. */
function closeReason(message: string): string {
  const bytes = Buffer.from(message, 'utf8');
  return bytes.length <= 123 ? message : `${bytes.subarray(0, 120).toString('utf8').replace(/\uFFFD$/, '')}...`;
}

/**
 * How far an SSE client is behind. graphql-sse takes each result from the
 * stream at once into a queue of its own, unbounded, and writes one message
 * after the write before it went out: a client that stops reading leaves the
 * results piling up in that queue (the stream's own buffer stays empty). The
 * results handed to graphql-sse less the messages written are that queue;
 * past the bound the response is destroyed, which ends the stream (its
 * client, not reading, could not be sent a last error anyway).
 */
class SseFlow {
  private handed = 0;
  private written = 0;

  constructor(
    private readonly res: ServerResponse,
    private readonly maxUnsent: number,
  ) {
    const write = res.write;
    // Counts the results written (`event: next`); the keep-alive comments are not results.
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (typeof chunk === 'string' && chunk.startsWith('event: next')) this.written += 1;
      return (write as (...args: unknown[]) => boolean).call(res, chunk, ...rest);
    }) as typeof res.write;
  }

  handedOut(logger: Logger): void {
    this.handed += 1;
    if (this.handed - this.written <= this.maxUnsent || this.res.destroyed) return;
    logger.warn({ unsent: this.handed - this.written }, 'an SSE subscriber stopped reading: its stream was disconnected (EVENT_SUBSCRIPTION_BUFFER)');
    this.res.destroy();
  }
}

/**
 * ws closes a socket whose message passes maxPayload (1009) and reports it as
 * an `error` event, which graphql-ws prints to the console as an internal
 * error. It is the client's mistake: logged as a warning, not passed on.
 */
function refuseOversizeQuietly(ws: WebSocket, logger: Logger): void {
  const emit = ws.emit.bind(ws);
  ws.emit = ((event: string | symbol, ...args: unknown[]) => {
    if (event === 'error' && (args[0] as { code?: unknown } | undefined)?.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
      logger.warn('a WebSocket message over BODY_LIMIT closed its socket (1009)');
      return true;
    }
    return emit(event, ...args);
  }) as typeof ws.emit;
}
