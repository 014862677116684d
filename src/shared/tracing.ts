import {
  context,
  createContextKey,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';

/**
 * The spans of a request, on the OpenTelemetry API alone: the SDK, which
 * records and exports them, is loaded only when tracing is on
 * (tracing-sdk.ts, started by the composition root). While it is off no
 * tracer is set, and every helper here is one check of a variable.
 *
 * A span is made only inside a request: the request's span (http/) is the
 * root, and the GraphQL operation, resolver and database command spans are
 * its descendants through the OTel context (AsyncLocalStorage). Each carries
 * the request id as `request.id`, the id the answer's X-Request-Id, error
 * bodies, logs and audit records show. Background work (the reconciler,
 * sweepers, webhook delivery) has no request and makes no span.
 */

/** The request id, on every span (no semantic convention names one). */
export const REQUEST_ID_ATTRIBUTE = 'request.id';

const REQUEST_ID = createContextKey('admin-gateway request id');

let tracer: Tracer | undefined;

/** Set by the SDK's start (tracing-sdk.ts), cleared by its stop; undefined: tracing is off. */
export function setTracer(active: Tracer | undefined): void {
  tracer = active;
}

export function tracingOn(): boolean {
  return tracer !== undefined;
}

/** A request's span and the context its work runs in (the span, the request id). */
export interface RequestTrace {
  span: Span;
  context: Context;
}

/**
 * Starts a request's SERVER span, continuing the caller's trace when its
 * headers carry one (W3C `traceparent`); undefined while tracing is off.
 */
export function startRequestSpan(name: string, requestId: string, headers: Record<string, unknown>, attributes: Attributes): RequestTrace | undefined {
  if (!tracer) return undefined;
  const parent = propagation.extract(ROOT_CONTEXT, headers);
  const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes: { ...attributes, [REQUEST_ID_ATTRIBUTE]: requestId } }, parent);
  return { span, context: trace.setSpan(parent, span).setValue(REQUEST_ID, requestId) };
}

/** A span below the active request's, begun now; undefined outside a request or while tracing is off. */
export function startChildSpan(name: string, kind: SpanKind, attributes: Attributes): { span: Span; context: Context } | undefined {
  if (!tracer) return undefined;
  const parent = context.active();
  const requestId = parent.getValue(REQUEST_ID);
  if (typeof requestId !== 'string') return undefined;
  const span = tracer.startSpan(name, { kind, attributes: { ...attributes, [REQUEST_ID_ATTRIBUTE]: requestId } }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/**
 * `work` inside a child span of the active request (INTERNAL), ended when
 * its value (or promise) settles; a throw marks the span failed. Without a
 * request or while tracing is off, `work` runs as it is.
 */
export function inChildSpan<T>(name: string, attributes: Attributes, work: (span: Span | undefined) => T): T {
  const child = startChildSpan(name, SpanKind.INTERNAL, attributes);
  if (!child) return work(undefined);
  const { span } = child;
  let result: T;
  try {
    result = context.with(child.context, work, undefined, span);
  } catch (err) {
    endFailed(span, err);
    throw err;
  }
  if (isPromiseLike(result)) {
    return result.then(
      (value) => {
        span.end();
        return value;
      },
      (err: unknown) => {
        endFailed(span, err);
        throw err;
      },
    ) as T;
  }
  span.end();
  return result;
}

/**
 * Ends a span as failed. Only the error's kind is kept (`error.type`): its
 * message may quote a value or a secret, and attributes must hold neither.
 */
export function endFailed(span: Span, err: unknown, errorType = errorTypeOf(err)): void {
  span.setAttribute(ATTR_ERROR_TYPE, errorType);
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** A catalogue error's code (`NOT_FOUND`), else the error's class name. */
function errorTypeOf(err: unknown): string {
  if (err && typeof err === 'object') {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z_]{1,64}$/.test(code)) return code;
    const name = (err as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof name === 'string' && name) return name;
  }
  return '_OTHER';
}

function isPromiseLike<T>(value: T): value is T & PromiseLike<Awaited<T>> {
  return value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function';
}

export { SpanKind, SpanStatusCode, context as traceContext, type Span };
