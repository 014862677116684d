import type { IndexSpec } from '../model/index.js';
import { isNumeric, isPlainObject, ownField, toDouble } from './values.js';
import type { Document } from './types.js';

/**
 * Wildcard indexes (`{"$**": 1}`, `{"path.$**": 1}`, compound with other
 * fields in mongod 7.0) as mongod's WildcardKeyGenerator keys them: one key
 * per leaf of the (projected) document, `{$_path: "a.b", "": value}`. Array
 * positions are not part of a path (each element is keyed under the array's
 * path), an array inside an array is keyed whole, an empty document is
 * keyed as `{}` and an empty array as undefined, and a field whose name holds
 * a dot is skipped (its parent document is keyed whole, so that reads stay
 * those of a collection scan). `_id` is left out unless the projection
 * includes it.
 */

/** The key field of a wildcard index: `$**` or `<path>.$**`. */
export function isWildcardKeyField(field: string): boolean {
  return field === '$**' || field.endsWith('.$**');
}

/** Whether `spec` is a wildcard index (a `$**` key field with a numeric direction; `{"$**": "text"}` is a text index). */
export function isWildcardIndex(spec: IndexSpec): boolean {
  return Object.entries(spec.key).some(([field, dir]) => isWildcardKeyField(field) && typeof dir !== 'string');
}

export interface WildcardShape {
  /** The wildcard key field (`$**`, `a.$**`) and its position in the key pattern. */
  field: string;
  position: number;
  /** Which leaf paths the index keys. */
  covers(path: string): boolean;
}

/** The shape of a wildcard index: which paths it covers, where its `$_path` key sits. */
export function wildcardShape(spec: IndexSpec): WildcardShape | undefined {
  const fields = Object.keys(spec.key);
  const position = fields.findIndex(isWildcardKeyField);
  if (position < 0 || !isWildcardIndex(spec)) return undefined;
  const field = fields[position]!;
  if (field !== '$**') {
    const root = field.slice(0, -'.$**'.length);
    return { field, position, covers: (path) => path === root || path.startsWith(`${root}.`) };
  }
  const projection = isPlainObject(spec.wildcardProjection) ? flattenProjection(spec.wildcardProjection) : [];
  const rest = projection.filter(([path]) => path !== '_id');
  const idRule = projection.find(([path]) => path === '_id');
  const includeId = idRule !== undefined && idRule[1];
  const inclusion = rest.length > 0 && rest[0]![1];
  const under = (path: string, root: string) => path === root || path.startsWith(`${root}.`);
  const covers = (path: string): boolean => {
    if (under(path, '_id')) return includeId;
    if (rest.length === 0) return true;
    return inclusion ? rest.some(([root]) => under(path, root)) : !rest.some(([root]) => under(path, root));
  };
  return { field, position, covers };
}

/** A projection's paths with whether each is included (`{a: {b: 1}}` is `a.b`). */
export function flattenProjection(projection: Document, prefix = ''): Array<[string, boolean]> {
  const out: Array<[string, boolean]> = [];
  for (const [key, value] of Object.entries(projection)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (isPlainObject(value)) out.push(...flattenProjection(value, path));
    else out.push([path, isNumeric(value) ? toDouble(value) !== 0 : Boolean(value)]);
  }
  return out;
}

/** The wildcard keys of one document: each covered leaf's path and value, and whether some path ran through an array. */
export function wildcardLeaves(doc: Document, shape: WildcardShape): { leaves: Array<[string, unknown]>; multikey: boolean } {
  const leaves: Array<[string, unknown]> = [];
  let multikey = false;
  const visit = (value: unknown, path: string, inArray: boolean): void => {
    if (Array.isArray(value)) {
      // An array inside an array is a value, not a level.
      if (inArray) return add(path, value);
      multikey = true;
      if (value.length === 0) return add(path, undefined);
      for (const element of value) visit(element, path, true);
      return;
    }
    if (isPlainObject(value)) {
      const keys = Object.keys(value);
      if (keys.length === 0) return add(path, {});
      let dotted = false;
      for (const key of keys) {
        if (key.includes('.')) dotted = true;
        else visit(ownField(value, key), path ? `${path}.${key}` : key, false);
      }
      // mongod skips a field whose name holds a dot, so `$exists` on its parent could miss the
      // document; the parent is keyed whole instead, and the filter decides.
      if (dotted) add(path, value);
      return;
    }
    add(path, value);
  };
  const add = (path: string, value: unknown): void => {
    if (path !== '' && shape.covers(path)) leaves.push([path, value]);
  };
  visit(doc, '', false);
  return { leaves, multikey };
}
