import { mongoError } from '../errors.js';
import { compileFilter, compileJsonSchema } from '../query/index.js';
import type { Document } from '../query/types.js';
import { isPlainObject } from '../query/values.js';
import type { Storage } from '../storage/types.js';

/**
 * A collection's `validator` (create option) applied to written documents, as
 * mongod does: validationLevel "strict" checks every write, "moderate" skips
 * updates of documents that were already invalid, "off" and
 * validationAction "warn" check nothing; `bypassDocumentValidation` skips it.
 * A failure is 121 with mongod's `errInfo.details`: the full explanation for
 * `$jsonSchema` clauses; other query operators get an empty details object.
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
  const explain = validatorDetails(validator);
  return (doc, previous) => {
    if (moderate && previous && !matches(previous)) return;
    if (!matches(doc)) {
      throw mongoError('DocumentValidationFailure', 'Document failed validation', {
        errInfo: { failingDocumentId: doc._id, details: explain(doc) },
      });
    }
  };
}

/** One top-level clause of a validator and what mongod says when it fails. */
function clauseDetails(key: string, value: unknown): { matches: (doc: Document) => boolean; details: (doc: Document) => Document } {
  if (key === '$jsonSchema') {
    const schema = compileJsonSchema(value);
    return { matches: schema.test, details: schema.details };
  }
  return { matches: compileFilter({ [key]: value }), details: () => ({}) };
}

/**
 * errInfo.details for a failing document: the clause's own details when the
 * validator has one clause, else mongod's implicit `$and` with the failing
 * clauses by index.
 */
function validatorDetails(validator: Document): (doc: Document) => Document {
  const clauses = Object.keys(validator).map((key) => clauseDetails(key, validator[key]));
  if (clauses.length === 1) return clauses[0]!.details;
  return (doc) => ({
    operatorName: '$and',
    clausesNotSatisfied: clauses.flatMap((c, index) => (c.matches(doc) ? [] : [{ index, details: c.details(doc) }])),
  });
}

/** A validator must compile when the collection is created (unsupported operators fail early). */
export function assertValidValidator(options: Document): void {
  if (isPlainObject(options.validator)) compileFilter(options.validator);
}
