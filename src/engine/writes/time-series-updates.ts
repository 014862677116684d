import { mongoError } from '../errors.js';
import type { Document } from '../query/types.js';
import { isPlainObject } from '../query/values.js';
import type { CollectionInfo } from '../storage/types.js';
import { isReplacement } from './update-statement.js';

/**
 * mongod 7.0's limits on updates of a time-series collection (arbitrary
 * updates came in 7.1; deletes have had none since 7.0): the statement must
 * be multi, not an upsert, match only on the metaField and change only it,
 * with update operators (write_ops_exec.cpp's performSingleUpdateOp and
 * timeseries_update_delete_util.cpp). Each refusal is InvalidOptions (72).
 */

const refuse = (message: string): Error => mongoError('InvalidOptions', message);

const onMeta = (path: string, metaField: string): boolean => path.split('.')[0] === metaField;

/** translateQuery: every top-level field (also inside $and/$or/$nor) is the metaField; no $expr/$where. */
function checkQuery(name: string, value: unknown, metaField: string, isTop: boolean, parentIsArray: boolean): void {
  if (name === '$expr') throw refuse('Cannot use $expr when performing an update or delete on a time-series collection');
  if (name === '$where') throw refuse('Cannot use $where when performing an update or delete on a time-series collection');
  const notMeta = `Cannot perform an update or delete on a time-series collection when querying on a field that is not the metaField '${metaField}'`;
  if (name === '$jsonSchema' && isPlainObject(value)) {
    const required = Array.isArray(value.required) ? value.required : [];
    if (required.some((field) => field !== metaField)) throw refuse(notMeta);
    if (isPlainObject(value.properties) && Object.keys(value.properties).some((field) => field !== metaField)) throw refuse(notMeta);
    return;
  }
  if (isTop && !name.startsWith('$') && !onMeta(name, metaField)) throw refuse(notMeta);
  const childTop = parentIsArray && isPlainObject(value);
  if (Array.isArray(value)) value.forEach((child, i) => checkQuery(String(i), child, metaField, childTop, true));
  else if (isPlainObject(value)) for (const [key, child] of Object.entries(value)) checkQuery(key, child, metaField, childTop, false);
}

/** translateUpdate: operators only, each changing the metaField (a $rename's target too). */
function checkModification(update: Document | Document[], metaField: string): void {
  if (Array.isArray(update)) throw refuse('Cannot perform an update on a time-series collection using a pipeline update');
  if (isReplacement(update)) throw refuse('Cannot perform an update on a time-series collection using a replacement document');
  const notMeta = `Cannot perform an update on a time-series collection which updates a field that is not the metaField '${metaField}'`;
  for (const [operator, fields] of Object.entries(update)) {
    if (!isPlainObject(fields)) continue;
    for (const [path, value] of Object.entries(fields)) {
      if (!onMeta(path, metaField)) throw refuse(notMeta);
      if (operator === '$rename' && !(typeof value === 'string' && onMeta(value, metaField))) throw refuse(notMeta);
    }
  }
}

export interface TimeSeriesUpdate {
  q: Document;
  u: Document | Document[];
  multi: boolean;
  upsert: boolean;
}

/** Refuses an update statement mongod 7.0 refuses on this time-series collection, in its order. */
export function assertTimeSeriesUpdate(info: CollectionInfo, statement: TimeSeriesUpdate): void {
  const metaField = (info.options.timeseries as Document).metaField as string | undefined;
  if (metaField === undefined) throw refuse('Cannot perform an update on a time-series collection that does not have a metaField');
  if (!statement.multi) throw refuse('Cannot perform a non-multi update on a time-series collection');
  if (statement.upsert) throw refuse('Cannot perform an upsert on a time-series collection');
  for (const [name, value] of Object.entries(statement.q)) checkQuery(name, value, metaField, true, false);
  checkModification(statement.u, metaField);
}
