import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * Typed GraphQL documents for TypeScript clients (client preset), from the
 * committed schema (`npm run schema` refreshes it). Documents: `.graphql`
 * files under test/ and src/client/. Output is generated, not committed.
 * Run: `npm run codegen`. Imports carry `.js` (`importExtension`), so the
 * output compiles under `moduleResolution: NodeNext` and runs as ESM; the
 * example client (examples/typed-client.ts) and test/http/typed-client.test.ts
 * use it that way.
 */
const config: CodegenConfig = {
  schema: 'schema/schema.graphql',
  documents: ['test/**/*.graphql', 'src/client/**/*.{ts,graphql}'],
  ignoreNoDocuments: true,
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
