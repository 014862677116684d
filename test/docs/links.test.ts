import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { anchorsOf, headingSlug, linkProblems } from './markdown-links.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** README.md and every markdown page under docs/. */
function documentationFiles(): string[] {
  const pages = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return pages(path);
      return entry.name.endsWith('.md') ? [path] : [];
    });
  return [join(ROOT, 'README.md'), ...pages(join(ROOT, 'docs'))];
}

describe('links of README.md and docs/', () => {
  it('covers the README and the docs pages', () => {
    const files = documentationFiles().map((file) => relative(ROOT, file));
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/api.md', 'docs/security.md']));
  });

  it.each(documentationFiles().map((file) => [relative(ROOT, file), file]))('%s links only to what the repository holds', (_name, file) => {
    expect(linkProblems(readFileSync(file, 'utf8'), file, ROOT)).toEqual([]);
  });
});

describe('the link check', () => {
  const root = mkdtempSync(join(tmpdir(), 'links-'));
  mkdirSync(join(root, 'docs'));
  writeFileSync(join(root, 'docs/page.md'), '# A page\n\n## Errors: the `code`\n\n## Errors: the `code`\n');
  writeFileSync(join(root, 'tool.ts'), '');
  const readme = join(root, 'README.md');
  const check = (markdown: string) => linkProblems(markdown, readme, root).map(({ target, problem }) => `${target}: ${problem}`);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('accepts links to files, folders and headings that exist, and web links', () => {
    expect(check('[a](docs/page.md) [b](docs/) [c](tool.ts) [d](docs/page.md#errors-the-code-1) [e](#top) [f](https://example.com/x)\n# Top')).toEqual([]);
  });

  it('names a link to a missing file, and one to a missing heading', () => {
    expect(check('see [the guide](docs/guide.md) and [errors](docs/page.md#error)')).toEqual([
      'docs/guide.md: no such file',
      'docs/page.md#error: no heading with the anchor #error',
    ]);
  });

  it('names a link or a path that leaves the repository, in prose or in code', () => {
    expect(check('[contract](../shared/notes/plan.md), `/tmp/x`\n```sh\ncat ../shared/peer/run\nls /work/main\n```')).toEqual([
      '../shared/: a path outside the repository',
      '/tmp/: a path outside the repository',
      '../shared/: a path outside the repository',
      '/work/: a path outside the repository',
      '../shared/notes/plan.md: outside the repository',
    ]);
  });

  it('ignores links inside code', () => {
    expect(check('`[x](nowhere.md)`\n```md\n[y](nowhere.md)\n```')).toEqual([]);
  });

  it('makes anchors as GitHub does', () => {
    expect(headingSlug('Errors: the `code` & [its status](x.md)')).toBe('errors-the-code--its-status');
    expect([...anchorsOf('# Sign-in throttling\n## Sign-in throttling\n```\n# not a heading\n```')]).toEqual(['sign-in-throttling', 'sign-in-throttling-1']);
  });
});
