import { mongoError } from '../errors.js';
import type { IndexSpec } from '../model/index.js';
import { geoKeyCheck, isGeoKeyField } from '../query/geo/index.js';
import {
  checkTextLanguages, getIndexKeyValues, getPath, hashedFieldPosition, hashedKey, identical, isPlainObject, isTextIndexSpec, ownField, pathExists,
  textIndexInfo, wildcardLeaves, wildcardShape,
} from '../query/index.js';
import type { Collation, Document, WildcardShape } from '../query/index.js';
import { canonicalKey, canonicalTupleKey } from './canonical-key.js';
import { duplicateKeyError } from './dup-key-error.js';
import { indexEntry, SortedEntries } from './index-sorted-entries.js';
import type { IndexEntry, KeyBounds, RangeBounds } from './index-sorted-entries.js';
import { compilePartialFilter } from './partial-filter.js';

/**
 * The map key of the single tuple of a non-unique compound index's document
 * whose key paths meet no array (never a canonical key, which is not empty):
 * nothing looks that tuple up, so no canonical key is built for it.
 */
const UNKEYED_TUPLE = '';

/**
 * Whether two documents' keys for one index are the same (a replacement
 * then leaves its entries alone). False may also mean "not known": the
 * entries are then moved, which is always correct.
 */
export function sameDocKeys(a: DocKeys | undefined, b: DocKeys | undefined): boolean {
  if (!a || !b) return a === b;
  if (a.multikey !== b.multikey || a.tuples.size !== b.tuples.size || a.first.length !== b.first.length) return false;
  for (const k of a.tuples.keys()) if (!b.tuples.has(k)) return false;
  const unkeyed = a.tuples.get(UNKEYED_TUPLE);
  if (unkeyed && !sameValues(unkeyed, b.tuples.get(UNKEYED_TUPLE)!)) return false;
  return sameValues(a.first, b.first);
}

function sameValues(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((v, i) => canonicalKey(v) === canonicalKey(b[i]));
}

/** The keys one document contributes to one index. */
export interface DocKeys {
  /** Distinct values of the first key field (one sorted entry each). */
  first: unknown[];
  /** Distinct full key tuples, by canonical key (unique checks; the sorted entries of a compound index). */
  tuples: Map<string, unknown[]>;
  /** Some key field of this document runs through an array. */
  multikey?: boolean;
}

/**
 * One live index: entries sorted on the full key (compound indexes keep one
 * entry per key tuple, so a scan yields the index's key order; equality and
 * range scans bound the first field, KeyBounds several) and, when unique, a
 * hash map from the full key to its document.
 * Sparse and partial indexes skip the documents they do not cover; missing
 * fields are keyed as null, so two documents missing a unique field collide.
 */
export class IndexRuntime {
  readonly fields: string[];
  readonly collation?: Collation;
  /** Fields split once: key extraction runs on every write. */
  private readonly paths: string[][];
  /** Only `_id` can never hold an array, so its scans need no de-duplication. */
  private readonly multikey: boolean;
  private readonly sorted: SortedEntries;
  private readonly uniqueKeys?: Map<string, string>;
  /**
   * Keys several documents hold in an index that refuses new duplicates
   * (`prepareUnique` over data that already had them, or a restore): every
   * holder, so removing one leaves the key claimed by the others.
   */
  private sharedKeys?: Map<string, Set<string>>;
  private readonly covers?: (doc: Document) => boolean;
  /** 2d/2dsphere: refuses a document whose geo field holds no valid geometry (16755 & co.). */
  private readonly geoCheck?: (doc: Document) => void;
  /** A text index refuses a document naming a language it cannot use (mongod 17261/17262). */
  private readonly checkText?: (doc: Document) => void;
  /** Documents whose keys run through an array: while any exist the index cannot give a sort order. */
  private arrayDocs = 0;
  /**
   * An ascending/descending index on top-level fields only, with no partial
   * filter: its keys are a function of those fields' values alone, so equal
   * values mean equal keys (sameKeysBetween).
   */
  private readonly keyedByTopLevelFields: boolean;
  /** A hashed index: the position of its hashed field, whose key is the value's hash (query/hashed-key.ts). */
  private readonly hashedAt: number;
  /** A wildcard index: its entries hold `$_path` and the leaf's value where the key pattern has its `$**` field. */
  private readonly wildcard?: WildcardShape;

  constructor(readonly spec: IndexSpec) {
    this.fields = Object.keys(spec.key);
    this.paths = this.fields.map((f) => f.split('.'));
    this.multikey = spec.name !== '_id_';
    this.collation = spec.collation as Collation | undefined;
    this.hashedAt = hashedFieldPosition(spec);
    this.wildcard = wildcardShape(spec);
    const dir = (f: string): number => (Number(spec.key[f]) < 0 ? -1 : 1);
    // A wildcard entry's key values: the `$_path` (ascending) then the value (the field's direction).
    const dirs = this.fields.flatMap((f, i) => (i === this.wildcard?.position ? [1, dir(f)] : [dir(f)]));
    this.sorted = new SortedEntries(this.collation, dirs.slice(1).map((d) => d * dirs[0]!));
    if (refusesDuplicates(spec)) this.uniqueKeys = new Map();
    if (spec.partialFilterExpression) this.covers = compilePartialFilter(spec.partialFilterExpression, this.collation);
    this.geoCheck = geoKeyCheck(spec);
    if (isTextIndexSpec(spec)) {
      const info = textIndexInfo(spec);
      this.checkText = (doc) => checkTextLanguages(info, doc);
    }
    this.keyedByTopLevelFields =
      !spec.partialFilterExpression &&
      this.fields.every((f) => !f.includes('.') && !f.includes('$') && (spec.key[f] === 1 || spec.key[f] === -1));
  }

  /**
   * Whether `a` and `b` certainly give this index the same keys (and the
   * same coverage, sparse included): each key field is present in both or
   * in neither, with identical values. An update that leaves the key fields
   * alone then needs no key extraction, check or entry change here.
   * False means "not known", never "different".
   */
  sameKeysBetween(a: Document, b: Document): boolean {
    if (!this.keyedByTopLevelFields) return false;
    for (const field of this.fields) {
      const inA = Object.hasOwn(a, field);
      if (inA !== Object.hasOwn(b, field)) return false;
      // An array keeps the full path: the new document's parallel-array check (171) must run.
      if (inA && (Array.isArray(b[field]) || !identical(a[field], b[field]))) return false;
    }
    return true;
  }

  get name(): string {
    return this.spec.name;
  }

  /**
   * The document's keys, or undefined when this index does not cover it.
   * Like mongod, a compound index refuses a document whose key fields run
   * through two different arrays (171): their cross product is not a key
   * set, and could be millions of tuples. `strict: false` (restore) skips
   * that check for data stored before it existed.
   */
  keysOf(doc: Document, strict = true): DocKeys | undefined {
    if (this.spec.sparse && !this.paths.some((p) => pathExists(doc, p))) return undefined;
    if (this.covers && !this.covers(doc)) return undefined;
    if (strict) this.geoCheck?.(doc);
    if (strict) this.checkText?.(doc);
    if (this.wildcard) return this.wildcardKeys(doc, this.wildcard);
    const tuples = new Map<string, unknown[]>();
    const plain = this.hashedAt >= 0 ? this.hashedTuple(doc, strict) : this.plainTuple(doc);
    if (plain) {
      // No key field meets an array (the common case): one value per field, one tuple. Only a
      // unique index looks tuples up by their canonical key; the others are not worth building one.
      if (this.uniqueKeys) tuples.set(canonicalTupleKey(plain, this.collation), plain);
      else if (this.paths.length > 1) tuples.set(UNKEYED_TUPLE, plain);
      return { first: [plain[0]], tuples, multikey: false };
    }
    // Walked once per path: both the parallel-array check and the multikey flag need it.
    const prefixes = this.paths.map((p) => arrayPrefixLength(doc, p));
    const perField = this.paths.map((p) => getIndexKeyValues(doc, p));
    const shared = this.paths.length > 1 ? this.sharedArrayPrefix(prefixes, strict) : undefined;
    const first = distinct(perField[0]!, this.collation);
    const multikey = this.multikey && prefixes.some((length) => length !== undefined);
    if (this.uniqueKeys || this.paths.length > 1) {
      const add = (tuple: unknown[]) => tuples.set(canonicalTupleKey(tuple, this.collation), tuple);
      if (shared) {
        // Fields inside one array pair up element by element (mongod's keys), not crosswise.
        for (const element of getPath(doc, this.paths[0]!.slice(0, shared.length)) as unknown[]) {
          const lists = this.paths.map((p, i) =>
            shared.fields.has(i) ? getIndexKeyValues(element, p.slice(shared.length)) : perField[i]!,
          );
          for (const tuple of cartesian(lists)) add(tuple);
        }
      } else {
        for (const tuple of cartesian(perField)) add(tuple);
      }
    }
    return { first, tuples, multikey };
  }

  /**
   * A hashed index's one key tuple: no key path may meet an array (mongod's
   * 16766, also for the other fields of a compound hashed index); a stored
   * document (`strict: false`) is keyed with null there, as mongod removes
   * keys written before that rule.
   */
  private hashedTuple(doc: Document, strict: boolean): unknown[] {
    const tuple = this.plainTuple(doc);
    if (!tuple && strict) {
      const field = this.paths.findIndex((p) => arrayPrefixLength(doc, p) !== undefined);
      const at = this.paths[field]!.slice(0, arrayPrefixLength(doc, this.paths[field]!)).join('.');
      throw mongoError('Location16766', `Error: hashed indexes do not currently support array values. Found array at path: ${at}`);
    }
    const keyed = tuple ?? this.paths.map((p) => (arrayPrefixLength(doc, p) === undefined ? (getPath(doc, p) ?? null) : null));
    keyed[this.hashedAt] = hashedKey(keyed[this.hashedAt], this.collation);
    return keyed;
  }

  /**
   * A wildcard index's keys: one tuple per covered leaf (wildcardLeaves),
   * with its path and value in place of the `$**` field and the other
   * fields' values (null when missing) around them. A document with no
   * covered leaf has no entry.
   */
  private wildcardKeys(doc: Document, shape: WildcardShape): DocKeys {
    const { leaves, multikey } = wildcardLeaves(doc, shape);
    const others = this.paths.map((p, i) => (i === shape.position ? [] : distinct(getIndexKeyValues(doc, p), this.collation)));
    const tuples = new Map<string, unknown[]>();
    for (const [path, value] of leaves) {
      const lists = others.map((list, i) => (i === shape.position ? [[path, value]] : list.map((v) => [v])));
      for (const parts of cartesian(lists)) {
        const tuple = (parts as unknown[][]).flat();
        tuples.set(canonicalTupleKey(tuple, this.collation), tuple);
      }
    }
    return { first: [], tuples, multikey };
  }

  /**
   * The one key tuple of a document none of whose key paths meets an array
   * (each value as getIndexKeyValues gives it then: missing is null);
   * undefined when some path does meet one.
   */
  private plainTuple(doc: Document): unknown[] | undefined {
    const tuple = new Array<unknown>(this.paths.length);
    for (let p = 0; p < this.paths.length; p++) {
      const path = this.paths[p]!;
      let cur: unknown = doc;
      for (let i = 0; i < path.length && cur !== undefined; i++) {
        cur = isPlainObject(cur) ? ownField(cur, path[i]!) : undefined;
        if (Array.isArray(cur)) return undefined;
      }
      tuple[p] = cur === undefined ? null : cur;
    }
    return tuple;
  }

  /** Whether some indexed document has an array on a key path (mongod's isMultiKey). */
  get isMultikey(): boolean {
    return this.arrayDocs > 0;
  }

  /** The sorted entries one document contributes: per first-field value, or per key tuple (compound). */
  private entriesOf(keys: DocKeys, idKey: string): IndexEntry[] {
    if (this.paths.length === 1 && !this.wildcard) return keys.first.map((value) => ({ value, idKey }));
    return [...keys.tuples.values()].map((t) => indexEntry(t, idKey));
  }

  /**
   * The array the key fields go through: undefined when at most one field
   * meets an array; throws CannotIndexParallelArrays (171) when they meet
   * different ones.
   */
  private sharedArrayPrefix(prefixes: ReadonlyArray<number | undefined>, strict: boolean): { length: number; fields: Set<number> } | undefined {
    let found: { length: number; fields: Set<number> } | undefined;
    for (let i = 0; i < this.paths.length; i++) {
      // A geo field's coordinates are an array but not a multikey path.
      if (isGeoKeyField(this.spec, this.fields[i]!)) continue;
      const length = prefixes[i];
      if (length === undefined) continue;
      if (!found) {
        found = { length, fields: new Set([i]) };
        continue;
      }
      const other = this.paths[[...found.fields][0]!]!;
      const same = length === found.length && this.paths[i]!.slice(0, length).every((part, k) => part === other[k]);
      if (!same) {
        if (!strict) return undefined;
        throw mongoError('CannotIndexParallelArrays', `cannot index parallel arrays [${this.fields[i]}] [${this.fields[[...found.fields][0]!]}]`);
      }
      found.fields.add(i);
    }
    return found && found.fields.size > 1 ? found : undefined;
  }

  /** Throws DuplicateKey when another document already holds one of these keys. */
  check(ns: string, keys: DocKeys | undefined, idKey: string): void {
    if (!this.uniqueKeys || !keys) return;
    for (const [key, tuple] of keys.tuples) {
      const owner = this.uniqueKeys.get(key);
      if (owner !== undefined && owner !== idKey && !this.sharedKeys?.get(key)?.has(idKey)) throw duplicateKeyError(ns, this.spec, tuple);
    }
  }

  add(keys: DocKeys | undefined, idKey: string): void {
    if (!keys) return;
    for (const entry of this.entriesOf(keys, idKey)) this.sorted.insert(entry);
    if (keys.multikey) this.arrayDocs++;
    if (this.uniqueKeys) this.claimKeys(keys, idKey);
  }

  /**
   * The `_id` index's key of a document is its `idKey` (both canonical keys of
   * the `_id`, without a collation): the map then holds the document map's
   * string, not an equal copy per document.
   */
  private claimKeys(keys: DocKeys, idKey: string): void {
    for (const key of keys.tuples.keys()) {
      const owner = this.uniqueKeys!.get(key);
      if (owner === undefined || owner === idKey) {
        this.uniqueKeys!.set(key === idKey ? idKey : key, idKey);
        continue;
      }
      // Only a build over data that already held duplicates gets here (add() checks first).
      const holders = (this.sharedKeys ??= new Map()).get(key) ?? new Set([owner]);
      holders.add(idKey);
      this.sharedKeys.set(key, holders);
    }
  }

  private releaseKey(key: string, idKey: string): void {
    const holders = this.sharedKeys?.get(key);
    if (!holders) {
      if (this.uniqueKeys!.get(key) === idKey) this.uniqueKeys!.delete(key);
      return;
    }
    holders.delete(idKey);
    if (this.uniqueKeys!.get(key) === idKey) this.uniqueKeys!.set(key, holders.values().next().value!);
    if (holders.size < 2) this.sharedKeys!.delete(key);
  }

  /** The document keys of each group of documents sharing one key (collMod's conversion to unique), in natural order. */
  duplicateGroups(): string[][] {
    return [...(this.sharedKeys?.values() ?? [])].map((holders) => [...holders]);
  }

  remove(keys: DocKeys | undefined, idKey: string): void {
    if (!keys) return;
    for (const entry of this.entriesOf(keys, idKey)) this.sorted.remove(entry);
    if (keys.multikey) this.arrayDocs--;
    if (this.uniqueKeys) for (const key of keys.tuples.keys()) this.releaseKey(key, idKey);
  }

  /**
   * Builds the index over existing documents in one sort; throws DuplicateKey
   * (leaving this runtime unusable, the caller discards it) on a conflict.
   * A restore from disk passes `enforceUnique: false`: data accepted once
   * must never stop the engine from starting.
   */
  build(ns: string, docs: Iterable<[string, Document]>, enforceUnique = true): void {
    const entries: IndexEntry[] = [];
    for (const [idKey, doc] of docs) {
      const keys = this.keysOf(doc, enforceUnique);
      if (!keys) continue;
      // A prepareUnique index refuses new duplicates only: it may be built over old ones.
      if (enforceUnique && (this.spec.unique === true || this.spec.name === '_id_')) this.check(ns, keys, idKey);
      entries.push(...this.entriesOf(keys, idKey));
      if (keys.multikey) this.arrayDocs++;
      if (this.uniqueKeys) this.claimKeys(keys, idKey);
    }
    this.sorted.load(entries);
  }

  /** Document keys in index order for equality values, deduplicated (multikey). */
  lookup(values: readonly unknown[]): string[] {
    const seen = new Set<string>();
    const out: string[] = [];
    for (const v of expandEqualityValues(values)) {
      for (const e of this.sorted.equal(v)) if (!seen.has(e.idKey)) seen.add(e.idKey), out.push(e.idKey);
    }
    return out;
  }

  range(bounds: RangeBounds): string[] {
    return this.ids(this.sorted.range(bounds));
  }

  all(): string[] {
    return this.ids(this.sorted.all());
  }

  /** Document keys inside compound bounds, in key order or (`backward`) its reverse, deduplicated. */
  within(bounds: KeyBounds, backward = false): Iterable<string> {
    // Read as the caller goes (a page reads a page, not the run): idKeysIn.
    if (!this.hasArrayKeys) return this.sorted.idKeysIn(bounds, backward);
    const entries = this.sorted.within(bounds);
    // Reverse before de-duplicating: a multikey document comes first where the scan first meets it.
    return this.ids(backward ? entries.reverse() : entries);
  }

  /** How many entries a scan inside `bounds` examines (planning). */
  countWithin(bounds: KeyBounds): number {
    return this.sorted.countWithin(bounds);
  }

  private ids(entries: readonly IndexEntry[]): string[] {
    return this.hasArrayKeys ? dedupe(entries) : entries.map((e) => e.idKey);
  }

  /** Only a document with an array key has several entries: without one there is nothing to de-duplicate. */
  private get hasArrayKeys(): boolean {
    // A wildcard index holds an entry per leaf: a scan over several paths meets a document more than once.
    return (this.multikey && this.arrayDocs > 0) || this.wildcard !== undefined;
  }

  get entryCount(): number {
    return this.sorted.size;
  }
}

/** Whether an index refuses a second document with a key it holds: unique, `_id`, or prepared to become unique (mongod 6.0's prepareUnique). */
export function refusesDuplicates(spec: IndexSpec): boolean {
  return spec.unique === true || spec.prepareUnique === true || spec.name === '_id_';
}

function dedupe(entries: readonly IndexEntry[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const e of entries) {
    if (seen.has(e.idKey)) continue;
    seen.add(e.idKey);
    out.push(e.idKey);
  }
  return out;
}

/**
 * An array equality value matches documents whose field IS that array (its
 * entries are the elements: look up the first one; an empty array is keyed
 * undefined) or CONTAINS it (an entry equal to the array itself).
 */
function expandEqualityValues(values: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const v of values) {
    out.push(v);
    if (Array.isArray(v)) out.push(v.length === 0 ? undefined : v[0]);
  }
  return out;
}

function distinct(values: unknown[], collation?: Collation): unknown[] {
  if (values.length < 2) return values;
  const seen = new Set<string>();
  return values.filter((v) => {
    const k = canonicalKey(v, collation);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** How many components of `path` lead to the first array on it (undefined: no array). */
function arrayPrefixLength(doc: Document, path: string[]): number | undefined {
  let cur: unknown = doc;
  for (let i = 0; i < path.length; i++) {
    if (!isPlainObject(cur)) return undefined;
    cur = ownField(cur, path[i]!);
    if (Array.isArray(cur)) return i + 1;
  }
  return undefined;
}

function cartesian(lists: unknown[][]): unknown[][] {
  let out: unknown[][] = [[]];
  for (const list of lists) {
    const next: unknown[][] = [];
    for (const prefix of out) for (const v of list) next.push([...prefix, v]);
    out = next;
  }
  return out;
}
