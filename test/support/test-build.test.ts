import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureTestBuild, ROOT, type TestBuildOptions } from './test-build.js';

/**
 * The test builds (one of the service for the process tests and test/bench, one of
 * the engine) are compiled once per state of their sources: reused while no
 * file changed, rebuilt when one is saved, added or removed, and compiled by
 * one of several processes asking at once. Shown on a one-file fixture under
 * dist/ (gitignored; tsc's rootDir is the project root).
 */

const id = randomBytes(4).toString('hex');
const fixture = `dist/test-build-fixture-${id}`;
const options: TestBuildOptions = { name: `fixture-${id}`, entries: [`${fixture}/entry.ts`], watch: [fixture] };
const outDir = path.join(ROOT, 'dist', 'test-builds', options.name);
const write = (file: string, text: string) => writeFileSync(path.join(ROOT, fixture, file), text);
const built = () => readFileSync(path.join(outDir, fixture, 'entry.js'), 'utf8');

mkdirSync(path.join(ROOT, fixture), { recursive: true });
write('entry.ts', 'export const version: number = 1;\n');

afterAll(() => {
  rmSync(path.join(ROOT, fixture), { recursive: true, force: true });
  rmSync(outDir, { recursive: true, force: true });
});

/** ensureTestBuild in a separate Node process (as a parallel test file would): whether it compiled. */
function buildInChild(): Promise<boolean> {
  const module = pathToFileURL(path.join(import.meta.dirname, 'test-build.ts')).href;
  const script = `const { ensureTestBuild } = await import(${JSON.stringify(module)}); process.stdout.write(String(ensureTestBuild(${JSON.stringify(options)}).compiled));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => child.once('close', (code) => (code === 0 ? resolve(output === 'true') : reject(new Error(`exit ${code}`)))));
}

describe('a test build', () => {
  it('is compiled by exactly one of three processes asking at once', async () => {
    const compiled = await Promise.all([buildInChild(), buildInChild(), buildInChild()]);
    expect(compiled.filter(Boolean)).toHaveLength(1);
    expect(built()).toContain('version = 1');
  }, 60_000);

  it('is reused while its sources are unchanged', () => {
    expect(ensureTestBuild(options).compiled).toBe(false);
  });

  it('is rebuilt when a source is saved', () => {
    write('entry.ts', 'export const version: number = 2;\n');
    expect(ensureTestBuild(options).compiled).toBe(true);
    expect(built()).toContain('version = 2');
    expect(ensureTestBuild(options).compiled).toBe(false);
  }, 60_000);

  it('is rebuilt when a source is added, and again when it is removed', () => {
    write('extra.ts', 'export {};\n');
    expect(ensureTestBuild(options).compiled).toBe(true);
    rmSync(path.join(ROOT, fixture, 'extra.ts'));
    expect(ensureTestBuild(options).compiled).toBe(true);
  }, 60_000);
});
