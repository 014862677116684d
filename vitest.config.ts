import { createRequire } from 'node:module';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  // SWC (not esbuild) compiles the tests: TypeGraphQL and Typegoose read the
  // decorator metadata (emitDecoratorMetadata) that esbuild does not emit.
  plugins: [swc.vite({ module: { type: 'es6' } })],
  resolve: {
    // graphql 16 ships both index.mjs and index.js; Vite would pick the .mjs
    // for our code while type-graphql requires the .js: two realms. Node
    // (and so `npm start`) uses the .js for both, so the tests do too.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
