import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * Typed GraphQL documents for TypeScript clients (client preset), from the
 * committed schema (`npm run schema` refreshes it). Documents: `.graphql`
 * files under test/ and src/client/. Output is generated, not committed.
 * Run: `npm run codegen`.
 */
const config: CodegenConfig = {
  schema: 'schema/schema.graphql',
  documents: ['test/**/*.graphql', 'src/client/**/*.{ts,graphql}'],
  ignoreNoDocuments: true,
  generates: {
    '.generated/gql/': {
      preset: 'client',
      config: { useTypeImports: true, enumsAsTypes: true },
    },
  },
};

export default config;
