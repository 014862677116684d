/**
 * A typed GraphQL client of this service in plain TypeScript (fetch, no
 * framework), one function per area.
 *
 * The operations are the client documents in examples/operations/*.graphql;
 * `npm run codegen` turns them into typed documents under .generated/gql/
 * (GraphQL Code Generator, client preset). Each document carries its result
 * and variables types, so a misspelt field, a missing required variable or a
 * variable of the wrong type is a compile error, not a runtime surprise.
 *
 * `npm run example` generates, compiles this file with tour.ts and run.ts,
 * and runs the tour against a service it starts (see run.ts).
 * test/http/typed-client.test.ts compiles this file and runs each function
 * against the real service; test/http/typed-client-example.test.ts runs
 * `npm run example` on a fresh copy of the repository.
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import {
  ApiKeyFieldsFragmentDoc,
  ApiKeysDocument,
  ApiKeyWithSecretFieldsFragmentDoc,
  AuditEventsDocument,
  CreateApiKeyDocument,
  CreateMealMenuDocument,
  CreateUserDocument,
  LoginDocument,
  MealMenuFieldsFragmentDoc,
  MealMenusDocument,
  MeDocument,
  SchemaNamesDocument,
  UserFieldsFragmentDoc,
  UsersDocument,
  type ApiKeyFieldsFragment,
  type ApiKeysQueryVariables,
  type ApiKeyWithSecretFieldsFragment,
  type AuditEventsQuery,
  type AuditEventsQueryVariables,
  type CreateApiKeyMutationVariables,
  type CreateMealMenuMutationVariables,
  type CreateUserMutationVariables,
  type MealMenuFieldsFragment,
  type MealMenusQueryVariables,
  type UserFieldsFragment,
  type UsersQueryVariables,
} from '../.generated/gql/graphql.js';
// `useFragment` is a plain function despite its name: it unmasks a fragment's
// fields (the client preset hides them behind `...Fragment` until then).
import { useFragment } from '../.generated/gql/index.js';

/** A GraphQL error as the service sends it (`extensions.code`, `extensions.http.status`). */
export interface GraphQLErrorBody {
  message: string;
  extensions?: { code?: string; http?: { status?: number }; [key: string]: unknown };
}

export class GraphQLRequestError extends Error {
  constructor(
    readonly errors: GraphQLErrorBody[],
    readonly status: number,
  ) {
    super(errors.map((error) => error.message).join('; ') || `HTTP ${status}`);
  }

  /** The first error's code, e.g. UNAUTHENTICATED, FORBIDDEN, BAD_USER_INPUT. */
  get code(): string | undefined {
    return this.errors[0]?.extensions?.code;
  }
}

/** The variables may be left out exactly when the operation requires none. */
type VariablesArgument<TVariables> = {} extends TVariables ? [variables?: TVariables] : [variables: TVariables];

/** Runs one typed document; resolves to its `data`, rejects with GraphQLRequestError. */
export type Client = <TResult, TVariables>(
  document: TypedDocumentNode<TResult, TVariables>,
  ...variables: VariablesArgument<TVariables>
) => Promise<TResult>;

export interface ClientOptions {
  /** The service, e.g. http://localhost:4000 (GraphQL is at /graphql). */
  baseUrl: string;
  /** An access token (from `signIn`) or an API key secret (`ak_…`). */
  credential?: string;
}

export function createClient({ baseUrl, credential }: ClientOptions): Client {
  return async function request<TResult, TVariables>(
    document: TypedDocumentNode<TResult, TVariables>,
    ...[variables]: VariablesArgument<TVariables>
  ): Promise<TResult> {
    const response = await fetch(`${baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(credential ? { authorization: `Bearer ${credential}` } : {}) },
      body: JSON.stringify({ query: print(document), variables }),
    });
    const body = (await response.json()) as { data?: TResult | null; errors?: GraphQLErrorBody[] };
    if (body.errors?.length || body.data == null) throw new GraphQLRequestError(body.errors ?? [], response.status);
    return body.data;
  };
}

export interface Page<T> {
  items: T[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/** Auth: an access token for `createClient({ credential })`. */
export async function signIn(client: Client, email: string, password: string, tenantId?: string | null): Promise<string> {
  const { login } = await client(LoginDocument, { email, password, tenantId });
  return login.accessToken;
}

/** Users: who the credential acts as. */
export async function whoAmI(client: Client): Promise<UserFieldsFragment> {
  const { me } = await client(MeDocument);
  return useFragment(UserFieldsFragmentDoc, me);
}

/** Users: one page (filters: email, role, search). */
export async function listUsers(client: Client, variables: UsersQueryVariables = {}): Promise<Page<UserFieldsFragment>> {
  const { users } = await client(UsersDocument, variables);
  return { items: useFragment(UserFieldsFragmentDoc, users.items), nextCursor: users.nextCursor };
}

/** Users: create one (`createdBy` and `updatedBy` are the caller's own id, from `whoAmI`). */
export async function createUser(client: Client, variables: CreateUserMutationVariables): Promise<UserFieldsFragment> {
  const { createUser: user } = await client(CreateUserDocument, variables);
  return useFragment(UserFieldsFragmentDoc, user);
}

/** Meal menus: create one (`date` is a service day YYYY-MM-DD). */
export async function createMealMenu(client: Client, variables: CreateMealMenuMutationVariables): Promise<MealMenuFieldsFragment> {
  const { createMealMenu: menu } = await client(CreateMealMenuDocument, variables);
  return useFragment(MealMenuFieldsFragmentDoc, menu);
}

/** Meal menus: one page (filters: date, mealType, includeDeleted). */
export async function listMealMenus(client: Client, variables: MealMenusQueryVariables = {}): Promise<Page<MealMenuFieldsFragment>> {
  const { mealMenus } = await client(MealMenusDocument, variables);
  return { items: useFragment(MealMenuFieldsFragmentDoc, mealMenus.items), nextCursor: mealMenus.nextCursor };
}

/** API keys: create one; `key` is the secret, answered this once. */
export async function createApiKey(client: Client, variables: CreateApiKeyMutationVariables): Promise<ApiKeyWithSecretFieldsFragment> {
  const { createApiKey: created } = await client(CreateApiKeyDocument, variables);
  return useFragment(ApiKeyWithSecretFieldsFragmentDoc, created);
}

/** API keys: one page (never with secrets). */
export async function listApiKeys(client: Client, variables: ApiKeysQueryVariables = {}): Promise<Page<ApiKeyFieldsFragment>> {
  const { apiKeys } = await client(ApiKeysDocument, variables);
  return { items: useFragment(ApiKeyFieldsFragmentDoc, apiKeys.items), nextCursor: apiKeys.nextCursor };
}

/** Schemas: the names `schema(schemaName)` answers a JSON Schema for. */
export async function schemaNames(client: Client): Promise<string[]> {
  const { schemaNames: names } = await client(SchemaNamesDocument);
  return names;
}

export type AuditEvent = AuditEventsQuery['auditEvents']['items'][number];

/** Audit trail: newest first (filters: actor, action, target, from, to). */
export async function auditEvents(client: Client, variables: AuditEventsQueryVariables = {}): Promise<Page<AuditEvent>> {
  const { auditEvents: page } = await client(AuditEventsDocument, variables);
  return page;
}
