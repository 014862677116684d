import { getMetadataStorage } from 'type-graphql';

/**
 * Which operations anyone may call. Declared in one place, the resolvers:
 * an operation whose resolver carries no `@Authorized` (on its method or
 * its class) is open (login); every other one needs a caller. The OpenAPI
 * document (no `security`) and the credential check that runs before any
 * argument is read (src/auth/credential-first.ts) both read it here, so
 * they cannot drift from what the resolvers enforce.
 *
 * An operation is named by its schema coordinate, as the REST route table
 * names it: `Mutation.login`, `Query.apiKey`.
 */
export function isOpenOperation(coordinate: string): boolean {
  const [typeName, fieldName = ''] = coordinate.split('.');
  const storage = getMetadataStorage();
  const operations = typeName === 'Query' ? storage.queries : typeName === 'Mutation' ? storage.mutations : [];
  const resolver = operations.find((candidate) => candidate.schemaName === fieldName);
  if (!resolver) return false;
  const authorized =
    storage.authorizedFields.some((a) => a.target === resolver.target && a.fieldName === resolver.methodName) ||
    storage.authorizedResolver.some((a) => a.target === resolver.target);
  return !authorized;
}

/**
 * The permissions an operation's `@Authorized` names (on its method; empty
 * for `@Authorized()` or an unknown coordinate), read from the same
 * metadata, so a report of what a key needed follows the resolvers.
 */
export function permissionsOfOperation(coordinate: string): readonly string[] {
  const [typeName, fieldName = ''] = coordinate.split('.');
  const storage = getMetadataStorage();
  const operations = typeName === 'Query' ? storage.queries : typeName === 'Mutation' ? storage.mutations : [];
  const resolver = operations.find((candidate) => candidate.schemaName === fieldName);
  if (!resolver) return [];
  const authorized = storage.authorizedFields.find((a) => a.target === resolver.target && a.fieldName === resolver.methodName);
  return (authorized?.roles ?? []).filter((role): role is string => typeof role === 'string');
}
