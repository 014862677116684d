import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { TestApp, TestResponse } from './test-app.js';

/**
 * One table of API cases, run over both surfaces.
 *
 * Each case names its operation once, in its REST form (method, path, body)
 * and its GraphQL form (document, variables), with one expectation. The runner
 * runs every case over REST and over GraphQL and asserts the same outcome:
 * the status (GraphQL: HTTP 200 without errors for a success, else
 * `errors[0].extensions.http.status`), the error code (REST problem+json
 * `code`, GraphQL `errors[0].extensions.code`), the field errors, the result
 * body and the database state afterwards.
 *
 * Cases that change data get fresh fixtures on each surface from `arrange`,
 * so the REST run and the GraphQL run never see each other's effects.
 */

export type Surface = 'rest' | 'graphql';
export const SURFACES: readonly Surface[] = ['rest', 'graphql'];

/** What the runner needs of the test app. */
export type ApiClient = Pick<TestApp, 'rest' | 'graphql'>;

export interface RestForm {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Relative to /api/v1. */
  path: string;
  body?: unknown;
}

export interface GraphqlForm {
  /** One operation with one root field; its data is the result. */
  query: string;
  variables?: Record<string, unknown>;
}

export interface Operation {
  rest: RestForm;
  graphql: GraphqlForm;
}

/** Who calls: a token, none, or raw headers (e.g. a malformed Authorization). */
export interface Caller {
  token?: string;
  headers?: Record<string, string>;
}

/** A field error of a 400: `{field, rule, message}`. */
export interface FieldErrorShape {
  field: string;
  rule: string;
  message?: string;
}

/** A surface's answer, made comparable. */
export interface Outcome {
  surface: Surface;
  status: number;
  /** Error code; undefined for a success. */
  code?: string;
  message?: string;
  fieldErrors: FieldErrorShape[];
  /** The operation's result: the REST body, or GraphQL `data.<field>`. */
  data: unknown;
  /** The raw HTTP answer, for diagnostics. */
  raw: TestResponse;
}

export interface Expectation<F> {
  status: number;
  code?: string;
  /** Field errors that must be present (by field and rule). */
  fieldErrors?: FieldErrorShape[];
  /** Response headers that must be present on both surfaces (e.g. WWW-Authenticate on a 401). */
  headers?: Record<string, string | RegExp>;
  /** Assertions on the result (successes). */
  data?: (data: any, fixture: F, outcome: Outcome) => void | Promise<void>;
  /** Assertions on the database afterwards. */
  db?: (fixture: F, outcome: Outcome) => void | Promise<void>;
}

export interface ApiCase<F = void> {
  name: string;
  /** Fresh fixtures for one run; called once per surface. */
  arrange?: (surface: Surface) => F | Promise<F>;
  caller: (fixture: F) => Caller;
  operation: (fixture: F) => Operation;
  expect: Expectation<F>;
}

/** Builds a case with its fixture type inferred from `arrange`. */
export function apiCase<F = void>(c: ApiCase<F>): ApiCase<F> {
  return c;
}

/** The name of the operation's root field (its alias if it has one). */
export function rootFieldOf(query: string): string {
  const operation = parse(query).definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const first = operation?.selectionSet.selections[0];
  if (!first || first.kind !== Kind.FIELD) throw new Error(`No root field in: ${query}`);
  return (first.alias ?? first.name).value;
}

interface GraphqlError {
  message?: string;
  extensions?: { code?: string; http?: { status?: number }; errors?: FieldErrorShape[] };
}

/** Calls one operation over one surface and normalises the answer. */
export async function callOperation(
  client: ApiClient,
  surface: Surface,
  operation: Operation,
  caller: Caller = {},
): Promise<Outcome> {
  const opts = { token: caller.token, headers: caller.headers };
  if (surface === 'rest') {
    const { method, path, body } = operation.rest;
    const raw = await client.rest(method, path, body === undefined ? opts : { ...opts, body });
    const problem = (raw.status >= 400 ? raw.body : undefined) as
      | { code?: string; detail?: string; title?: string; errors?: FieldErrorShape[] }
      | undefined;
    return {
      surface,
      status: raw.status,
      code: problem?.code,
      message: problem?.detail ?? problem?.title,
      fieldErrors: problem?.errors ?? [],
      data: problem ? undefined : raw.body,
      raw,
    };
  }
  const { query, variables } = operation.graphql;
  const raw = await client.graphql(query, variables, opts);
  const body = (raw.body ?? {}) as { data?: Record<string, unknown> | null; errors?: GraphqlError[] };
  const error = body.errors?.[0];
  return {
    surface,
    // A GraphQL success is HTTP 200 without errors; a refusal carries its status in the error.
    status: error ? (error.extensions?.http?.status ?? raw.status) : raw.status,
    code: error?.extensions?.code,
    message: error?.message,
    fieldErrors: error?.extensions?.errors ?? [],
    data: body.data?.[rootFieldOf(query)],
    raw,
  };
}

/** Asserts one outcome against one expectation; same rules for both surfaces. */
export async function assertOutcome<F>(outcome: Outcome, expectation: Expectation<F>, fixture: F): Promise<void> {
  const why = `${outcome.surface} answered ${outcome.raw.status}: ${JSON.stringify(outcome.raw.body)}`;
  const success = expectation.status < 400;
  if (success && outcome.surface === 'graphql') {
    // GraphQL has no 201: a success is a 200 with data and no errors.
    expect(outcome.code, why).toBeUndefined();
    expect(outcome.status, why).toBe(200);
    expect(outcome.data, why).toBeDefined();
  } else {
    expect(outcome.status, why).toBe(expectation.status);
  }
  if (success) {
    expect(outcome.code, why).toBeUndefined();
  } else {
    // Every refusal carries a code; the case may pin which.
    expect(outcome.code, why).toEqual(expectation.code ?? expect.any(String));
  }
  for (const [name, wanted] of Object.entries(expectation.headers ?? {})) {
    const value = outcome.raw.headers.get(name) ?? '';
    if (typeof wanted === 'string') expect(value, `${why}; header ${name}`).toBe(wanted);
    else expect(value, `${why}; header ${name}`).toMatch(wanted);
  }
  for (const wanted of expectation.fieldErrors ?? []) {
    expect(outcome.fieldErrors, why).toContainEqual(expect.objectContaining(wanted));
  }
  if (expectation.data) await expectation.data(outcome.data, fixture, outcome);
  if (expectation.db) await expectation.db(fixture, outcome);
}

/**
 * Registers `describe(title)` > `describe.each(['rest','graphql'])` > one `it`
 * per case. `client` is read lazily: the app starts in the file's beforeAll.
 */
export function runCases(title: string, client: () => ApiClient, cases: readonly ApiCase<any>[]): void {
  describe(title, () => {
    describe.each(SURFACES)('over %s', (surface) => {
      for (const c of cases) {
        it(c.name, async () => {
          const fixture = c.arrange ? await c.arrange(surface) : undefined;
          const outcome = await callOperation(client(), surface, c.operation(fixture), c.caller(fixture));
          await assertOutcome(outcome, c.expect, fixture);
        });
      }
    });
  });
}
