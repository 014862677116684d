import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';

/**
 * What a reader of README.md and docs/ follows: relative links, their
 * anchors, and paths written in prose or code. Whatever is checked here is
 * checked on a clone of the repository, where nothing outside it exists.
 */

export interface LinkProblem {
  line: number;
  target: string;
  problem: string;
}

const LINK = /\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;
/** Paths no clone has: the machine's work folders and the mission's shared notes. */
const OUTSIDE_PATH = /(^|[\s`'"(=])(\/work\/|\/tmp\/|\/home\/|\/root\/|(\.\.\/)+shared\/)/g;

/** Lines outside fenced code blocks, with their 1-based numbers. */
function proseLines(markdown: string): Array<{ line: number; text: string }> {
  const lines: Array<{ line: number; text: string }> = [];
  let fence: string | null = null;
  markdown.split('\n').forEach((text, index) => {
    const opener = /^\s*(`{3,}|~{3,})/.exec(text)?.[1];
    if (opener && (fence === null || opener.startsWith(fence))) {
      fence = fence === null ? opener : null;
      return;
    }
    if (fence === null) lines.push({ line: index + 1, text });
  });
  return lines;
}

/** GitHub's anchor for a heading: lowercase, punctuation dropped, spaces as dashes. */
export function headingSlug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a markdown text offers, numbered as GitHub numbers repeated headings. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)?.[1];
    if (heading === undefined) continue;
    const slug = headingSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

function readAnchors(file: string): Set<string> {
  return anchorsOf(readFileSync(file, 'utf8'));
}

function linkProblem(target: string, fromFile: string, root: string, ownAnchors: Set<string>): string | null {
  if (isAbsolute(target)) return 'an absolute path: no clone has it';
  const [path = '', anchor] = target.split('#', 2);
  if (path === '') return anchor === undefined || ownAnchors.has(anchor) ? null : `no heading with the anchor #${anchor}`;
  const file = resolve(dirname(fromFile), decodeURI(path));
  const inside = relative(root, file);
  if (inside.startsWith('..') || isAbsolute(inside)) return 'outside the repository';
  if (!existsSync(file)) return 'no such file';
  if (anchor === undefined || anchor === '') return null;
  if (statSync(file).isDirectory() || !file.endsWith('.md')) return 'an anchor into a file that is not markdown';
  return readAnchors(file).has(anchor) ? null : `no heading with the anchor #${anchor}`;
}

/** The links and paths of one markdown text (at `fromFile`) that lead nowhere in `root`. */
export function linkProblems(markdown: string, fromFile: string, root: string): LinkProblem[] {
  const problems: LinkProblem[] = [];
  markdown.split('\n').forEach((text, index) => {
    for (const outside of text.matchAll(OUTSIDE_PATH)) {
      problems.push({ line: index + 1, target: outside[2]!, problem: 'a path outside the repository' });
    }
  });
  const ownAnchors = anchorsOf(markdown);
  for (const { line, text } of proseLines(markdown)) {
    for (const match of text.replace(/`[^`]*`/g, '').matchAll(LINK)) {
      const target = match[1]!;
      if (EXTERNAL.test(target)) continue;
      const problem = linkProblem(target, fromFile, root, ownAnchors);
      if (problem) problems.push({ line, target, problem });
    }
  }
  return problems;
}
