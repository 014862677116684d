import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * Typed GraphQL documents for TypeScript clients (client preset), from the
 * committed schema (`npm run schema` refreshes it). Documents: the client
 * operations in examples/operations/ (where a team adds its own `.graphql`
 * files, in any subfolder) and any `.graphql` file a test keeps under test/.
 * Operation and fragment names are one namespace across all of them. Output
 * goes to .generated/gql/, generated, never committed.
 * Run: `npm run codegen` (`npm run example` runs it first). Imports carry
 * `.js` (`importExtension`), so the output compiles under
 * `moduleResolution: NodeNext` and runs as ESM; the example client
 * (examples/typed-client.ts) and test/http/typed-client.test.ts use it that way.
 */
const config: CodegenConfig = {
  schema: 'schema/schema.graphql',
  documents: ['examples/operations/**/*.graphql', 'test/**/*.graphql'],
  // No `ignoreNoDocuments`: finding no document at all is an error, not an empty output.
  importExtension: '.js',
  generates: {
    '.generated/gql/': {
      preset: 'client',
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        // The custom scalars as they travel in JSON (else codegen types them `unknown`).
        scalars: { DateTimeISO: 'string', JSONObject: 'Record<string, unknown>' },
      },
    },
  },
};

export default config;
