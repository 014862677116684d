import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * `npm run test:reliability`: the long versions of the reliability proofs
 * (test/reliability: crashes, SIGTERM, soak) and of the hostile-input
 * property tests (test/hostile). `npm test` runs the same files in their
 * short version. One file at a time: a soak that shares the machine with a
 * crash loop would measure the crash loop. Every knob can be overridden from
 * the environment (see test/reliability/reliability.ts).
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/reliability/**/*.test.ts', 'test/hostile/**/*.test.ts'],
    env: {
      RELIABILITY: 'long',
      HOSTILE_RUNS: process.env.HOSTILE_RUNS ?? '2000',
    },
    fileParallelism: false,
    // Long runs set their own budgets; this only stops a hung test.
    testTimeout: 30 * 60_000,
    hookTimeout: 30 * 60_000,
    passWithNoTests: false,
  },
});
