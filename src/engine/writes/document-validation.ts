import { mongoError } from '../errors.js';
import { compileFilter } from '../query/index.js';
import type { Document } from '../query/types.js';
import { isPlainObject } from '../query/values.js';
import type { Storage } from '../storage/types.js';

/**
 * A collection's `validator` (create option) applied to written documents, as
 * mongod does: validationLevel "strict" checks every write, "moderate" skips
 * updates of documents that were already invalid, "off" and
 * validationAction "warn" check nothing; `bypassDocumentValidation` skips it.
 * Only query-operator validators are supported ($jsonSchema is not).
 */
export type DocumentCheck = (doc: Document, previous?: Document) => void;

const noCheck: DocumentCheck = () => {};

export function documentCheck(storage: Storage, db: string, coll: string, bypass: unknown): DocumentCheck {
  if (bypass === true) return noCheck;
  const options = storage.collection(db, coll)?.options;
  const validator = options?.validator;
  if (!isPlainObject(validator) || Object.keys(validator).length === 0) return noCheck;
  if (options!.validationLevel === 'off' || options!.validationAction === 'warn') return noCheck;
  const moderate = options!.validationLevel === 'moderate';
  const matches = compileFilter(validator);
  return (doc, previous) => {
    if (moderate && previous && !matches(previous)) return;
    if (!matches(doc)) {
      throw mongoError('DocumentValidationFailure', 'Document failed validation', {
        errInfo: { failingDocumentId: doc._id, details: {} },
      });
    }
  };
}

/** A validator must compile when the collection is created (unsupported operators fail early). */
export function assertValidValidator(options: Document): void {
  if (isPlainObject(options.validator)) compileFilter(options.validator);
}
