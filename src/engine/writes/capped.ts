import { mongoError } from '../errors.js';
import { wrongType } from '../params/index.js';
import { isNumeric, toDouble } from '../query/index.js';
import type { Document } from '../query/types.js';
import type { CollectionInfo } from '../storage/types.js';

/**
 * `create`'s capped options, checked as mongod (8.0) checks them: `capped`
 * needs `size` (bytes, at least 1), `size` and `max` need `capped`. The
 * storage keeps the documents' BSON lengths within `size` and their number
 * within `max` by removing the oldest. Returns the options with `capped`
 * normalised to a boolean, as mongod lists them.
 */
export function cappedOptions(options: Document): Document {
  for (const field of ['size', 'max']) {
    const value = options[field];
    if (value !== undefined && value !== null && !isNumeric(value)) throw wrongType('create', field, value, 'number');
  }
  const capped = options.capped !== undefined && options.capped !== null && options.capped !== false && !(isNumeric(options.capped) && toDouble(options.capped) === 0);
  const size = options.size ?? undefined;
  if (size !== undefined && toDouble(size) < 1) {
    throw mongoError('Location51024', `BSON field 'size' value must be >= 1, actual value '${toDouble(size)}'`);
  }
  if (capped && size === undefined) throw mongoError('InvalidOptions', "the 'size' field is required when 'capped' is true");
  if ((size !== undefined || (options.max ?? undefined) !== undefined) && !capped) {
    throw mongoError('InvalidOptions', "the 'capped' field needs to be true when either the 'size' or 'max' fields are present");
  }
  return options.capped === undefined ? options : { ...options, capped };
}

export function isCapped(info: CollectionInfo | undefined): boolean {
  return info?.options.capped === true;
}
