import { mongoError } from '../errors.js';
import type { IndexSpec } from '../model/index.js';
import { formatValue } from './format.js';
import { isWildcardKeyField } from './wildcard-keys.js';
import { isNumeric, isPlainObject } from './values.js';

/**
 * createIndexes' rules for hashed and wildcard indexes, in mongod 7.0's
 * order (validateKeyPattern, the wildcardProjection option, then the
 * catalog's per-type checks), with its codes.
 */
export function checkHashedAndWildcardSpec(spec: IndexSpec): void {
  const fields = Object.keys(spec.key);
  const wildcards = fields.filter((f) => isWildcardKeyField(f) && isNumeric(spec.key[f]));
  checkDollarParts(spec, wildcards.length > 0);
  if (wildcards.length > 0) checkWildcardKey(spec, fields, wildcards);
  if (spec.wildcardProjection !== undefined) checkWildcardProjection(spec, fields, wildcards);
  const hashed = fields.filter((f) => spec.key[f] === 'hashed');
  if (hashed.length > 0) {
    if (spec.unique === true || (isNumeric(spec.unique) && Number(spec.unique) !== 0)) {
      throw mongoError('Location16764', 'Currently hashed indexes cannot guarantee uniqueness. Use a regular index.');
    }
    if (hashed.length > 1) {
      throw mongoError('Location31303', `A maximum of one index field is allowed to be hashed but found ${hashed.length} for 'key' ${formatValue(spec.key)}`);
    }
  }
  if (wildcards.length > 0) {
    const refuse = (what: string) => mongoError('CannotCreateIndex', `Index type 'wildcard' ${what}`);
    if (truthy(spec.sparse)) throw refuse('does not support the sparse option');
    if (truthy(spec.unique)) throw refuse('does not support the unique option');
    if (spec.expireAfterSeconds !== undefined) throw refuse('cannot be a TTL index');
  }
}

function truthy(value: unknown): boolean {
  return value === true || (isNumeric(value) && Number(value) !== 0);
}

/** A `$`-prefixed path part is a wildcard's `$**`, last, in a wildcard index, or a DBRef's `$id`/`$ref`/`$db` after the first part. */
function checkDollarParts(spec: IndexSpec, wildcard: boolean): void {
  for (const [field, value] of Object.entries(spec.key)) {
    if (field === '$**' && (isNumeric(value) || value === 'text')) continue;
    const parts = field.split('.');
    parts.forEach((part, i) => {
      if (!part.startsWith('$') || !field.includes('$**')) return;
      const dbRef = i > 0 && ['$id', '$ref', '$db'].includes(part);
      const wildcardPart = wildcard && part === '$**' && i === parts.length - 1 && isNumeric(value);
      if (!dbRef && !wildcardPart) throw mongoError('CannotCreateIndex', "Index key contains an illegal field name: field name starts with '$'.");
    });
  }
}

function checkWildcardKey(spec: IndexSpec, fields: string[], wildcards: string[]): void {
  const plugins = fields.filter((f) => typeof spec.key[f] === 'string');
  if (plugins.length > 0) throw mongoError('CannotCreateIndex', "Can't use more than one index plugin for a single index.");
  if (wildcards.length > 1) throw mongoError('Location7246201', 'Wildcard index does not allow multiple wildcard compound keys');
  const wildcard = wildcards[0]!;
  const root = wildcard === '$**' ? undefined : wildcard.slice(0, -'.$**'.length);
  if (root !== undefined) {
    for (const other of fields) {
      if (other === wildcard) continue;
      if (other === root || other.startsWith(`${root}.`) || root.startsWith(`${other}.`)) {
        throw mongoError('Location7246204', 'Compound wildcard index does not allow fields overlapping with the wildcard field');
      }
    }
  }
  if (wildcard === '$**' && fields.length > 1 && spec.wildcardProjection === undefined) {
    throw mongoError('CannotCreateIndex', "Compound wildcard indexes on all fields must also specify 'wildcardProjection' option");
  }
}

function checkWildcardProjection(spec: IndexSpec, fields: string[], wildcards: string[]): void {
  const projection = spec.wildcardProjection;
  if (wildcards.length === 0) throw mongoError('BadValue', "The field 'wildcardProjection' is only allowed in 'wildcard' indexes");
  if (!isPlainObject(projection)) {
    throw mongoError('TypeMismatch', `The field 'wildcardProjection' must be a non-empty object, but got ${typeOf(projection)}`);
  }
  if (!fields.includes('$**')) {
    throw mongoError('FailedToParse', `The field 'wildcardProjection' is only allowed when 'key' is {"$**": ±1} or {"$**": "columnstore"}`);
  }
  if (Object.keys(projection).length === 0) throw mongoError('FailedToParse', "The 'wildcardProjection' field can't be an empty object");
  const paths = flatten(projection);
  for (const [path, value] of paths) {
    if (!isNumeric(value) && typeof value !== 'boolean') {
      throw mongoError('Location51271', `Bad projection specification, '${path}' in wildcardProjection: wildcard index projections may only include or exclude fields`);
    }
  }
  const included = (v: unknown) => (typeof v === 'boolean' ? v : Number(v) !== 0);
  const rest = paths.filter(([path]) => path !== '_id');
  const mode = rest.length > 0 ? included(rest[0]![1]) : undefined;
  const mixed = rest.find(([, v]) => included(v) !== mode);
  if (mixed) {
    const [path] = mixed;
    throw mongoError('Location31254', mode ? `Cannot do exclusion on field ${path} in inclusion projection` : `Cannot do inclusion on field ${path} in exclusion projection`);
  }
  // A compound wildcard index's other fields must stay out of the projected paths (mongod 7.0's validateWildcardProjection).
  const others = fields.filter((f) => !isWildcardKeyField(f));
  const overlaps = (a: string, b: string) => a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`);
  for (const other of others) {
    const clash = mode ? rest.some(([p]) => overlaps(p, other)) : !rest.some(([p]) => other === p || other.startsWith(`${p}.`));
    if (clash) throw mongoError('Location7246200', 'The wildcardProjection must exclude the regular fields of a compound wildcard index');
  }
  if (others.length > 0) {
    for (const [a] of rest) {
      if (rest.some(([b]) => a !== b && a.startsWith(`${b}.`))) throw mongoError('Location7246200', `Path collision in wildcardProjection at ${a}`);
    }
  }
}

function flatten(projection: Record<string, unknown>, prefix = ''): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const [key, value] of Object.entries(projection)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (isPlainObject(value)) out.push(...flatten(value, path));
    else out.push([path, value]);
  }
  return out;
}

function typeOf(value: unknown): string {
  if (typeof value === 'string') return 'string';
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (isNumeric(value)) return 'double';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}
