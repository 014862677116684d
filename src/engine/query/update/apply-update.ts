import { mongoError } from '../../errors.js';
import { compareValues } from '../compare.js';
import { compileFilter } from '../filter/compile-filter.js';
import { formatValue } from '../format.js';
import { identical } from '../identical.js';
import { getPath, isArrayIndex } from '../path.js';
import { compilePositionalMatcher, positionalNotFound } from '../positional.js';
import { applyUpdatePipeline } from '../pipeline/update-pipeline.js';
import { cloneValue, isPlainObject } from '../values.js';
import type { Document } from '../types.js';
import { arrayUpdateOperators } from './array-operators.js';
import { fieldOperators } from './field-operators.js';
import { locate, removeValue, writeValue } from './update-paths.js';
import type { ApplyContext, FieldAction, FieldOperatorCompiler, UpdateOptions, UpdateResult } from './update-types.js';

/**
 * Applies an update (replacement, operator document or pipeline) to a copy
 * of a document, with mongod's validation, error codes and ordering (new
 * fields are created in path order, as mongod's update tree does).
 */

const OPERATORS: Readonly<Record<string, FieldOperatorCompiler>> = { ...fieldOperators, ...arrayUpdateOperators };

/** Whether an update document uses operators ($set ...) rather than replacing the document. */
export function isOperatorUpdate(update: Document | Document[]): boolean {
  if (Array.isArray(update)) return false;
  const first = Object.keys(update)[0];
  return first !== undefined && first.startsWith('$');
}

const ARRAY_FILTER_ID = /^[a-z][a-zA-Z0-9]*$/;

function compileArrayFilters(arrayFilters: Document[] | undefined, options: UpdateOptions): Map<string, (el: unknown) => boolean> {
  const out = new Map<string, (el: unknown) => boolean>();
  for (const af of arrayFilters ?? []) {
    if (!isPlainObject(af) || Object.keys(af).length === 0) {
      throw mongoError('FailedToParse', 'Cannot use an expression without a top-level field name in arrayFilters');
    }
    let id: string | undefined;
    for (const key of Object.keys(af)) {
      const head = key.split('.')[0]!;
      if (id !== undefined && head !== id) {
        throw mongoError('FailedToParse', `Error parsing array filter :: caused by :: Expected a single top-level field name, found '${id}' and '${head}'`);
      }
      id = head;
    }
    if (!ARRAY_FILTER_ID.test(id!)) {
      throw mongoError(
        'BadValue',
        `Error parsing array filter :: caused by :: The top-level field name must be an alphanumeric string beginning with a lowercase letter, found '${id}'`,
      );
    }
    if (out.has(id!)) throw mongoError('FailedToParse', `Found multiple array filters with the same top-level field name ${id}`);
    const test = compileFilter(af, { collation: options.collation });
    out.set(id!, (el) => test({ [id!]: el }));
  }
  return out;
}

/** `$`, `$[]` and `$[id]`: path parts resolved against arrays; any other `$name` is a field name. */
function isPositionalPart(part: string): boolean {
  return part === '$' || /^\$\[[a-zA-Z0-9]*\]$/.test(part);
}

/** An update path with an empty part is refused when the update is parsed. */
function validatePath(path: string): void {
  const parts = path.split('.');
  if (path === '' || parts.some((p) => p === '')) {
    throw mongoError('EmptyFieldName', `The update path '${path}' contains an empty field name, which is not allowed.`);
  }
}

/**
 * Since MongoDB 5.0 storage validation refuses a `$`-prefixed field name only
 * at the top level of an existing document, and only once an update sets or
 * creates it there: mongod checks the document, not the parsed update. So an
 * upsert's new document may hold `$myKey` (it is validated as an insert), an
 * update matching nothing is not refused, `$unset` may remove such a field,
 * and `{$set: {'m.$*.n': 1}}` (a map key as mongoose names it) creates `$*`.
 */
function dollarPrefixedField(field: string): Error {
  return mongoError(
    'DollarPrefixedFieldName',
    `The dollar ($) prefixed field '${field}' in '${field}' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.`,
  );
}

/** Operators that only remove (fields or array elements): mongod validates their siblings, not what they touched. */
const REMOVING_OPERATORS = new Set(['$unset', '$pull', '$pullAll', '$pop']);

/** Paths conflict when equal or one is a prefix of the other. */
function checkConflicts(paths: string[]): void {
  const sorted = [...paths].sort();
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i + 1; j < sorted.length; j++) {
      const a = sorted[i]!;
      const b = sorted[j]!;
      if (a === b || b.startsWith(`${a}.`)) {
        throw mongoError('ConflictingUpdateOperators', `Updating the path '${b}' would create a conflict at '${a}'`);
      }
      if (!b.startsWith(a)) break;
    }
  }
}

interface Entry {
  op: string;
  path: string;
  action: FieldAction;
}

interface Resolver {
  doc: Document;
  options: UpdateOptions;
  arrayFilters: Map<string, (el: unknown) => boolean>;
  usedFilters: Set<string>;
}

/** Expands positional tokens ($, $[], $[id]) into concrete paths. */
function resolvePaths(path: string, r: Resolver): string[][] {
  const parts = path.split('.');
  if (!parts.some(isPositionalPart)) return [parts];
  const out: string[][] = [];
  const walk = (i: number, prefix: string[]) => {
    if (i === parts.length) {
      out.push(prefix);
      return;
    }
    const part = parts[i]!;
    if (!isPositionalPart(part)) return walk(i + 1, [...prefix, part]);
    const arr = getPath(r.doc, prefix);
    if (part === '$') {
      if (r.options.isInsert) throw positionalNotFound();
      const rawPrefix = parts.slice(0, i).join('.');
      const match = compilePositionalMatcher(rawPrefix, r.options.filter, r.options.collation);
      const idx = match && Array.isArray(arr) ? match(arr) : undefined;
      if (idx === undefined) throw positionalNotFound();
      return walk(i + 1, [...prefix, String(idx)]);
    }
    if (!Array.isArray(arr)) {
      if (arr === undefined) {
        throw mongoError('BadValue', `The path '${prefix.join('.')}' must exist in the document in order to apply array updates.`);
      }
      throw mongoError('BadValue', `Cannot apply array updates to non-array element ${prefix[prefix.length - 1]}: ${formatValue(arr)}`);
    }
    const id = part.slice(2, -1);
    let test: ((el: unknown) => boolean) | undefined;
    if (id !== '') {
      test = r.arrayFilters.get(id);
      if (!test) throw mongoError('BadValue', `No array filter found for identifier '${id}' in path '${path}'`);
      r.usedFilters.add(id);
    }
    arr.forEach((el, idx) => {
      if (!test || test(el)) walk(i + 1, [...prefix, String(idx)]);
    });
  };
  walk(0, []);
  return out;
}

function comparePaths(a: string[], b: string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] === b[i]) continue;
    if (isArrayIndex(a[i]!) && isArrayIndex(b[i]!)) return Number(a[i]) - Number(b[i]);
    return a[i]! < b[i]! ? -1 : 1;
  }
  return a.length - b.length;
}

/**
 * Checks an update before any document is read, as mongod parses it: unknown
 * modifiers, bad operands and paths, conflicts, array filters. So a bad update
 * is refused even when nothing matches (a missing collection).
 */
export function checkUpdate(update: Document | Document[], options: UpdateOptions): void {
  if (Array.isArray(update) || !isOperatorUpdate(update)) return;
  parseOperators(update, { ...options, isInsert: true });
  compileArrayFilters(options.arrayFilters, options);
}

function parseOperators(update: Document, options: UpdateOptions): { entries: Entry[]; renames: Array<[string, string]> } {
  const entries: Entry[] = [];
  const renames: Array<[string, string]> = [];
  const rawPaths: string[] = [];
  for (const op of Object.keys(update)) {
    const operand = update[op];
    const compile = OPERATORS[op];
    if (!compile && op !== '$rename') {
      throw mongoError('FailedToParse', `Unknown modifier: ${op}. Expected a valid update modifier or pipeline-style update specified as an array`);
    }
    if (!isPlainObject(operand)) {
      throw mongoError('FailedToParse', `Modifiers operate on fields but we found type ${typeof operand} instead. For example: {$mod: {<field>: ...}} not {${op}: ${formatValue(operand)}}`);
    }
    // Since MongoDB 5.0 an empty operand ({$set: {}}, as mongoose sends for a minimised update) is a no-op.
    const paths = Object.keys(operand);
    for (const path of paths) {
      validatePath(path);
      rawPaths.push(path);
      if (op === '$rename') {
        const to = operand[path];
        if (typeof to !== 'string') throw mongoError('BadValue', `The 'to' field for $rename must be a string: ${path}: ${formatValue(to)}`);
        validatePath(to);
        if (to === path) throw mongoError('BadValue', `The source and target field for $rename must differ: ${path}: "${to}"`);
        if (/\$/.test(path) || /\$/.test(to)) throw mongoError('BadValue', 'The source and target field for $rename must not contain positional operators');
        rawPaths.push(to);
        renames.push([path, to]);
        continue;
      }
      if (op === '$setOnInsert' && !options.isInsert) continue;
      entries.push({ op, path, action: compile!(operand[path], path) });
    }
  }
  checkConflicts(rawPaths);
  return { entries, renames };
}

function applyOperators(original: Document, update: Document, options: UpdateOptions): Document {
  const doc = cloneValue(original);
  const ctx: ApplyContext = { now: options.now ?? new Date(), collation: options.collation, docId: { _id: original._id } };
  const { entries, renames } = parseOperators(update, options);

  for (const [from, to] of renames) applyRename(doc, from, to);

  const resolver: Resolver = { doc, options, arrayFilters: compileArrayFilters(options.arrayFilters, options), usedFilters: new Set() };
  const concrete: Array<{ parts: string[]; path: string; op: string; action: FieldAction }> = [];
  for (const e of entries) {
    for (const parts of resolvePaths(e.path, resolver)) concrete.push({ parts, path: e.path, op: e.op, action: e.action });
  }
  for (const id of resolver.arrayFilters.keys()) {
    if (!resolver.usedFilters.has(id)) {
      throw mongoError('FailedToParse', `The array filter for identifier '${id}' was not used in the update ${formatValue(update)}`);
    }
  }
  concrete.sort((a, b) => comparePaths(a.parts, b.parts));
  for (const { parts, op, action } of concrete) {
    const top = parts[0]!;
    const topExisted = Object.hasOwn(doc, top);
    const slot = locate(doc, parts, action.creates);
    if (!slot) continue;
    const change = action.apply(slot.value, slot.exists, parts.join('.'), ctx);
    if (change.kind === 'set' && !options.isInsert && top.startsWith('$') && !REMOVING_OPERATORS.has(op)) {
      // The top-level field itself is created or changed (a no-op is not checked, as in mongod).
      const changesTop = parts.length === 1 ? !(slot.exists && identical(slot.value, change.value)) : !topExisted;
      if (changesTop) throw dollarPrefixedField(top);
    }
    if (change.kind === 'set') writeValue(slot, change.value);
    else if (change.kind === 'unset') removeValue(slot);
  }
  return doc;
}

function applyRename(doc: Document, from: string, to: string): void {
  const fromParts = from.split('.');
  const src = locate(doc, fromParts, false);
  if (!src || !src.exists) return;
  if (Array.isArray(src.container)) throw mongoError('BadValue', `The source field cannot be an array element, '${from}' in doc with ${formatValue(doc)}`);
  const value = src.value;
  delete (src.container as Document)[src.key];
  const dest = locate(doc, to.split('.'), true)!;
  if (Array.isArray(dest.container)) throw mongoError('BadValue', `The destination field cannot be an array element, '${to}'`);
  writeValue(dest, value);
}

/** A replacement of an existing document may not hold a top-level `$`-prefixed field; an upsert's may (see dollarPrefixedField). */
function applyReplacement(original: Document, replacement: Document, isInsert: boolean): Document {
  const dollar = isInsert ? undefined : Object.keys(replacement).find((key) => key.startsWith('$'));
  if (dollar !== undefined) throw dollarPrefixedField(dollar);
  const out: Document = {};
  if (original._id !== undefined) out._id = original._id;
  for (const key of Object.keys(replacement)) {
    if (key === '_id' && original._id !== undefined) continue;
    out[key] = cloneValue(replacement[key]);
  }
  if (replacement._id !== undefined && original._id === undefined) out._id = cloneValue(replacement._id);
  if (replacement._id !== undefined && original._id !== undefined && compareValues(replacement._id, original._id) !== 0) {
    throw mongoError(
      'ImmutableField',
      `After applying the update, the (immutable) field '_id' was found to have been altered to _id: ${formatValue(replacement._id)}`,
    );
  }
  return out;
}

/**
 * A pipeline whose output lacks `_id` ($replaceRoot, $project without it)
 * keeps the original one, first, as mongod's pipeline executor does.
 */
function keepOriginalId(before: Document, after: Document): Document {
  if (before._id === undefined || after._id !== undefined) return after;
  return { _id: before._id, ...after };
}

function checkIdUnchanged(before: Document, after: Document, isInsert: boolean): void {
  if (isInsert || before._id === undefined) return;
  if (!identical(before._id, after._id)) {
    throw mongoError('ImmutableField', "Performing an update on the path '_id' would modify the immutable field '_id'");
  }
}

/** Applies `update` to a copy of `doc`; `modified` is false for a no-op. */
export function applyUpdate(doc: Document, update: Document | Document[], options: UpdateOptions): UpdateResult {
  let result: Document;
  if (Array.isArray(update)) {
    result = keepOriginalId(doc, applyUpdatePipeline(doc, update, { now: options.now, variables: options.variables }));
    checkIdUnchanged(doc, result, options.isInsert);
  } else if (!isPlainObject(update)) {
    throw mongoError('FailedToParse', 'Update argument must be either an object or an array');
  } else if (isOperatorUpdate(update)) {
    result = applyOperators(doc, update, options);
    checkIdUnchanged(doc, result, options.isInsert);
  } else {
    result = applyReplacement(doc, update, options.isInsert);
  }
  return { doc: result, modified: !identical(doc, result) };
}
