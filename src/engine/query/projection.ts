import { mongoError } from '../errors.js';
import { evaluateExpression } from './expression.js';
import { compileFilter } from './filter/compile-filter.js';
import { compilePositionalMatcher } from './positional.js';
import { getPath } from './path.js';
import { cloneValue, isNumeric, isPlainObject, setField, toDouble } from './values.js';
import type { Collation, Document } from './types.js';

/**
 * find projections. Inclusion keeps the DOCUMENT's field order (not the
 * projection's); computed fields follow in projection order. `_id` is kept
 * unless `_id: 0`. `$slice` neither includes nor excludes; `$elemMatch` and
 * `field.$` include.
 */

type Leaf =
  | { kind: 'include' }
  | { kind: 'exclude' }
  | { kind: 'expr'; expr: unknown }
  | { kind: 'slice'; skip: number; limit: number | undefined; fromEnd: boolean }
  | { kind: 'elemMatch'; test: (el: unknown) => boolean }
  | { kind: 'positional' };

type Tree = Map<string, Leaf | Tree>;

export interface ProjectionOptions {
  collation?: Collation;
  variables?: Document;
}

function parseSlice(operand: unknown): Leaf {
  if (isNumeric(operand)) {
    const n = Math.trunc(toDouble(operand));
    return n >= 0 ? { kind: 'slice', skip: 0, limit: n, fromEnd: false } : { kind: 'slice', skip: -n, limit: undefined, fromEnd: true };
  }
  if (Array.isArray(operand) && operand.length === 2 && operand.every(isNumeric)) {
    const skip = Math.trunc(toDouble(operand[0]));
    const limit = Math.trunc(toDouble(operand[1]));
    if (limit <= 0) throw mongoError('BadValue', '$slice limit must be positive');
    return skip >= 0 ? { kind: 'slice', skip, limit, fromEnd: false } : { kind: 'slice', skip: -skip, limit, fromEnd: true };
  }
  throw mongoError('BadValue', '$slice only supports numbers and [skip, limit] arrays');
}

function applySlice(value: unknown, leaf: Extract<Leaf, { kind: 'slice' }>): unknown {
  if (!Array.isArray(value)) return value;
  if (!leaf.fromEnd) return value.slice(leaf.skip, leaf.limit === undefined ? undefined : leaf.skip + leaf.limit);
  const start = Math.max(0, value.length - leaf.skip);
  return value.slice(start, leaf.limit === undefined ? undefined : start + leaf.limit);
}

interface Parsed {
  tree: Tree;
  inclusion: boolean;
  idExcluded: boolean;
  positional?: string;
}

function insert(tree: Tree, parts: string[], leaf: Leaf, fullPath: string): void {
  let node = tree;
  for (let i = 0; i < parts.length - 1; i++) {
    const next = node.get(parts[i]!);
    if (next === undefined) {
      const child: Tree = new Map();
      node.set(parts[i]!, child);
      node = child;
    } else if (next instanceof Map) {
      node = next;
    } else {
      throw mongoError('Location31249', `Path collision at ${fullPath} remaining portion ${parts.slice(i + 1).join('.')}`);
    }
  }
  const last = parts[parts.length - 1]!;
  if (node.has(last)) throw mongoError('Location31250', `Path collision at ${fullPath}`);
  node.set(last, leaf);
}

function parseProjection(projection: Document, options: ProjectionOptions): Parsed {
  const tree: Tree = new Map();
  let inclusion: boolean | undefined;
  let idExcluded = false;
  let positional: string | undefined;
  const setMode = (include: boolean, path: string) => {
    if (inclusion === undefined) inclusion = include;
    else if (inclusion !== include) {
      throw include
        ? mongoError('Location31253', `Cannot do inclusion on field ${path} in exclusion projection`)
        : mongoError('Location31254', `Cannot do exclusion on field ${path} in inclusion projection`);
    }
  };
  const walk = (spec: Document, prefix: string) => {
    for (const key of Object.keys(spec)) {
      const path = prefix + key;
      const value = spec[key];
      if (key.endsWith('.$')) {
        const base = path.slice(0, -2);
        if (positional) throw mongoError('BadValue', 'Cannot specify more than one positional proj. per query.');
        positional = base;
        setMode(true, path);
        insert(tree, base.split('.'), { kind: 'positional' }, path);
        continue;
      }
      if (isPlainObject(value)) {
        const first = Object.keys(value)[0];
        if (first === undefined) throw mongoError('Location51270', `An empty sub-projection is not a valid value. Found empty object at path`);
        if (first === '$slice') {
          insert(tree, path.split('.'), parseSlice(value.$slice), path);
        } else if (first === '$elemMatch') {
          if (path.includes('.')) throw mongoError('BadValue', 'Cannot use $elemMatch projection on a nested field.');
          if (!isPlainObject(value.$elemMatch)) throw mongoError('BadValue', 'elemMatch: Invalid argument, object required.');
          // Same value/document-form rules as the $elemMatch query operator, one element at a time.
          const p = compileFilter({ [path]: { $elemMatch: value.$elemMatch } }, { collation: options.collation });
          setMode(true, path);
          insert(tree, [path], { kind: 'elemMatch', test: (el) => p({ [path]: [el] }) }, path);
        } else if (first === '$meta') {
          // A textScore is a computed field that neither includes nor excludes (mongod >= 4.4).
          if (value.$meta !== 'textScore') throw mongoError('BadValue', `$meta projection '${String(value.$meta)}' is not supported`);
          insert(tree, path.split('.'), { kind: 'expr', expr: { $meta: 'textScore' } }, path);
        } else if (first.startsWith('$')) {
          setMode(true, path);
          insert(tree, path.split('.'), { kind: 'expr', expr: value }, path);
        } else {
          walk(value, `${path}.`);
        }
        continue;
      }
      const isFlag = typeof value === 'boolean' || isNumeric(value);
      if (!isFlag) {
        setMode(true, path);
        insert(tree, path.split('.'), { kind: 'expr', expr: value }, path);
        continue;
      }
      const include = typeof value === 'boolean' ? value : toDouble(value) !== 0;
      if (path === '_id') {
        if (!include) idExcluded = true;
        insert(tree, ['_id'], { kind: include ? 'include' : 'exclude' }, path);
        continue;
      }
      setMode(include, path);
      insert(tree, path.split('.'), { kind: include ? 'include' : 'exclude' }, path);
    }
  };
  walk(projection, '');
  // `{_id: 1}` alone is an inclusion projection; `{_id: 0}` alone an exclusion.
  const idLeaf = tree.get('_id');
  const idOnlyInclusion = idLeaf !== undefined && !(idLeaf instanceof Map) && idLeaf.kind === 'include';
  return { tree, inclusion: inclusion ?? idOnlyInclusion, idExcluded, positional };
}

function includeTree(doc: Document, tree: Tree, root: Document, ctx: ProjectionContext): Document {
  const out: Document = {};
  for (const key of Object.keys(doc)) {
    const node = tree.get(key);
    if (node === undefined) continue;
    const value = doc[key];
    if (node instanceof Map) {
      if (isPlainObject(value)) out[key] = includeTree(value, node, root, ctx);
      else if (Array.isArray(value)) out[key] = includeArray(value, node, root, ctx);
      continue;
    }
    switch (node.kind) {
      case 'include':
        out[key] = cloneValue(value);
        break;
      case 'slice':
        out[key] = cloneValue(applySlice(value, node));
        break;
      case 'elemMatch':
        if (Array.isArray(value)) {
          const hit = value.find(node.test);
          if (hit !== undefined) out[key] = [cloneValue(hit)];
        }
        break;
      case 'positional':
        if (Array.isArray(value) && ctx.positionalIndex !== undefined && ctx.positionalIndex < value.length) {
          out[key] = [cloneValue(value[ctx.positionalIndex])];
        }
        break;
      default:
        break;
    }
  }
  // Computed fields come after the included ones, in projection order.
  for (const [key, node] of tree) {
    if (!(node instanceof Map) && node.kind === 'expr') {
      const v = evaluateExpression(root, node.expr, ctx.variables);
      if (v !== undefined) out[key] = v;
    } else if (node instanceof Map && !(key in out) && hasExpr(node)) {
      out[key] = includeTree({}, node, root, ctx);
    }
  }
  return out;
}

function hasExpr(tree: Tree): boolean {
  for (const node of tree.values()) {
    if (node instanceof Map ? hasExpr(node) : node.kind === 'expr') return true;
  }
  return false;
}

function includeArray(arr: unknown[], tree: Tree, root: Document, ctx: ProjectionContext): unknown[] {
  const out: unknown[] = [];
  for (const el of arr) {
    if (isPlainObject(el)) out.push(includeTree(el, tree, root, ctx));
    else if (Array.isArray(el)) out.push(includeArray(el, tree, root, ctx));
  }
  return out;
}

/** Exclusion (and $slice-only) projection: copies everything except the excluded paths. */
function excludeTree(doc: Document, tree: Tree): Document {
  const out: Document = {};
  for (const key of Object.keys(doc)) {
    const node = tree.get(key);
    const value = doc[key];
    if (node === undefined) {
      out[key] = cloneValue(value);
    } else if (node instanceof Map) {
      if (isPlainObject(value)) out[key] = excludeTree(value, node);
      else if (Array.isArray(value)) out[key] = value.map((el) => (isPlainObject(el) ? excludeTree(el, node) : cloneValue(el)));
      else out[key] = cloneValue(value);
    } else if (node.kind === 'slice') {
      out[key] = cloneValue(applySlice(value, node));
    } else if (node.kind !== 'exclude') {
      out[key] = cloneValue(value);
    }
  }
  return out;
}

interface ProjectionContext {
  positionalIndex?: number;
  variables?: Document;
}

function positionalMatcher(path: string, filter: Document | undefined, collation?: Collation): (doc: Document) => number | undefined {
  const match = compilePositionalMatcher(path, filter, collation);
  if (!match) throw mongoError('BadValue', "positional operator '.$' requires corresponding field in query specifier");
  return (doc) => {
    const arr = getPath(doc, path);
    return Array.isArray(arr) ? match(arr) : undefined;
  };
}

/**
 * Compiles a find projection; an empty or absent projection returns the
 * document unchanged. `filter` is the query filter, needed by `field.$`.
 */
export function compileProjection(
  projection: Document | undefined,
  filter?: Document,
  options: ProjectionOptions = {},
): (doc: Document) => Document {
  if (!projection || Object.keys(projection).length === 0) return (doc) => doc;
  const parsed = parseProjection(projection, options);
  const findIndex = parsed.positional ? positionalMatcher(parsed.positional, filter, options.collation) : undefined;
  if (parsed.inclusion) {
    if (!parsed.idExcluded && !parsed.tree.has('_id')) {
      parsed.tree = new Map<string, Leaf | Tree>([['_id', { kind: 'include' }], ...parsed.tree]);
    }
    return (doc) => includeTree(doc, parsed.tree, doc, { positionalIndex: findIndex?.(doc), variables: options.variables });
  }
  // Exclusion mode: the only computed fields are `$meta` ones, added after the copy.
  const computed = [...parsed.tree].filter(([, node]) => !(node instanceof Map) && node.kind === 'expr');
  if (computed.length === 0) return (doc) => excludeTree(doc, parsed.tree);
  return (doc) => {
    const out = excludeTree(doc, parsed.tree);
    for (const [key, node] of computed) setField(out, key, evaluateExpression(doc, (node as { expr: unknown }).expr, options.variables));
    return out;
  };
}
