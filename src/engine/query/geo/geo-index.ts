import { mongoError } from '../../errors.js';
import { formatValue } from '../format.js';
import { getPathValues } from '../path.js';
import { isNumeric, isPlainObject, toDouble } from '../values.js';
import type { Document } from '../types.js';
import { isValidLngLat, parseStored } from './shapes.js';

/**
 * `2d` and `2dsphere` index specs and keys as mongod builds them: spec rules
 * at createIndexes (2d first and alone, bits/min/max; 2dsphere gets
 * `2dsphereIndexVersion: 3`), and the per-document key check that refuses a
 * malformed geometry (16755 for 2dsphere; 16804/13027 for 2d).
 */

interface SpecLike {
  key: Record<string, unknown>;
  [option: string]: unknown;
}

const geoFields = (key: Record<string, unknown>, kind: string) => Object.keys(key).filter((f) => key[f] === kind);

/** Validates a requested spec's geo parts and adds mongod's defaults (in place). */
export function normalizeGeoIndexSpec(spec: SpecLike): void {
  const flat = geoFields(spec.key, '2d');
  const sphere = geoFields(spec.key, '2dsphere');
  if (flat.length === 0 && sphere.length === 0) return;
  const plugins = new Set(Object.values(spec.key).filter((v) => typeof v === 'string'));
  if (plugins.size > 1) throw mongoError('CannotCreateIndex', "Can't use more than one index plugin for a single index.");
  if (flat.length > 0) {
    if (flat.length > 1) throw mongoError('Location16800', "can't have 2 geo fields");
    if (Object.keys(spec.key)[0] !== flat[0]) throw mongoError('Location16801', '2d has to be first in index');
    twoDRange(spec);
  }
  if (sphere.length > 0) {
    const version = spec['2dsphereIndexVersion'];
    if (version === undefined) spec['2dsphereIndexVersion'] = 3;
    else if (!isNumeric(version) || ![1, 2, 3].includes(toDouble(version))) {
      throw mongoError('CannotCreateIndex', `unsupported geo index version { 2dsphereIndexVersion : ${formatValue(version)} }, only support versions: [1,2,3]`);
    }
  }
}

/** A 2d index's bits/min/max (GeoHashConverter::parseParameters): InvalidOptions when out of range. */
function twoDRange(spec: SpecLike): { min: number; max: number } {
  for (const option of ['bits', 'min', 'max']) {
    if (spec[option] !== undefined && !isNumeric(spec[option])) throw mongoError('InvalidOptions', `${option} must be a number`);
  }
  const bits = spec.bits === undefined ? 26 : toDouble(spec.bits);
  const min = spec.min === undefined ? -180 : toDouble(spec.min);
  const max = spec.max === undefined ? 180 : toDouble(spec.max);
  if (!(bits >= 1 && bits <= 32)) {
    throw mongoError('InvalidOptions', `bits for hash must be > 0 and <= 32, but ${bits} bits were specified`);
  }
  if (!(min < max) || !Number.isFinite(min) || !Number.isFinite(max)) {
    throw mongoError('InvalidOptions', `region for hash must be valid and have positive area, but [${min}, ${max}] was specified`);
  }
  return { min, max };
}

/** The check a geo index applies to every document it keys (undefined for other indexes). */
export function geoKeyCheck(spec: SpecLike): ((doc: Document) => void) | undefined {
  const sphere = geoFields(spec.key, '2dsphere');
  const flat = geoFields(spec.key, '2d');
  if (sphere.length === 0 && flat.length === 0) return undefined;
  const range = flat.length > 0 ? twoDRange(spec) : undefined;
  return (doc) => {
    for (const path of sphere) checkSphereField(doc, path);
    if (range) for (const path of flat) checkFlatField(doc, path, range);
  };
}

function checkSphereField(doc: Document, path: string): void {
  const values = getPathValues(doc, path).filter((v) => v !== undefined);
  // One null, or an empty array/object, is no geo field (index versions >= 2).
  if (values.length === 1) {
    const v = values[0];
    if (v === null || (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0)) return;
  }
  for (const value of values) {
    const parsed = parseStored(value);
    let reason = parsed.ok ? undefined : parsed.reason;
    if (parsed.ok && parsed.geometry.kind === 'point' && parsed.geometry.flat && !isValidLngLat(parsed.geometry.p)) {
      reason = `can't project geometry into spherical CRS: ${path}: ${formatValue(value)}`;
    }
    if (reason) throw mongoError('Location16755', `Can't extract geo keys: ${formatValue(doc)}  ${reason}`);
  }
}

function checkFlatField(doc: Document, path: string, range: { min: number; max: number }): void {
  // GeoHashConverter::hash: two numbers within [min, max].
  const checkPoint = (loc: Document | unknown[]) => {
    const values = Array.isArray(loc) ? loc : Object.values(loc);
    if (values.length < 2) throw mongoError('Location13068', `geo field only has 1 element :: caused by :: ${formatValue(doc)}`);
    if (!isNumeric(values[0]) || !isNumeric(values[1])) {
      throw mongoError('Location13026', `geo values must be 'legacy coordinate pairs' for 2d indexes :: caused by :: ${formatValue(doc)}`);
    }
    const [x, y] = [toDouble(values[0]), toDouble(values[1])];
    if (![x, y].every((c) => c >= range.min && c <= range.max)) {
      throw mongoError('Location13027', `point not in interval of [ ${range.min}, ${range.max} ] :: caused by :: ${formatValue(doc)}`);
    }
  };
  for (const value of getPathValues(doc, path)) {
    if (!Array.isArray(value) && !isPlainObject(value)) continue;
    const elements = Array.isArray(value) ? value : Object.values(value);
    if (elements.length === 0) continue;
    if (isNumeric(elements[0])) {
      checkPoint(value as Document | unknown[]);
      continue;
    }
    // An array (or object) of locations.
    for (const loc of elements) {
      if (!Array.isArray(loc) && !isPlainObject(loc)) throw mongoError('Location16804', 'location object expected, location array not in correct format');
      if ((Array.isArray(loc) ? loc.length : Object.keys(loc).length) > 0) checkPoint(loc as Document | unknown[]);
    }
  }
}

/** Whether an index key names a geo plugin for this field (compound key checks skip such fields). */
export function isGeoKeyField(spec: SpecLike, field: string): boolean {
  return spec.key[field] === '2d' || spec.key[field] === '2dsphere';
}
