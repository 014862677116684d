import type { Schema } from 'mongoose';

/** Thrown by a mongoose operation that would change or remove a record of an append-only collection. */
export class AppendOnlyViolation extends Error {
  constructor(collection: string, operation: string) {
    super(`${collection} is append-only: ${operation} is refused`);
    this.name = 'AppendOnlyViolation';
  }
}

/** Query operations that change or remove stored records (mongoose's own names). */
const CHANGING_QUERIES = [
  'updateOne',
  'updateMany',
  'replaceOne',
  'findOneAndUpdate',
  'findOneAndReplace',
  'deleteOne',
  'deleteMany',
  'findOneAndDelete',
] as const;

/**
 * A mongoose schema plugin: records can be inserted and read, never changed
 * or removed through the model. Refuses every changing query (also the ones
 * called on a document, `doc.updateOne()` / `doc.deleteOne()`), a `save` of a
 * record that is already stored, and a `bulkWrite` with anything but inserts.
 * The native collection (`Model.collection`) is out of mongoose's reach.
 */
export function appendOnly(schema: Schema, { collection = 'this collection' }: { collection?: string } = {}): void {
  const refuse = (operation: string) => {
    throw new AppendOnlyViolation(collection, operation);
  };
  for (const operation of CHANGING_QUERIES) {
    schema.pre(operation, { query: true, document: true }, () => refuse(operation));
  }
  schema.pre('save', function (this: { isNew: boolean }) {
    if (!this.isNew) refuse('save of a stored record');
  });
  schema.pre('bulkWrite', (ops: readonly Record<string, unknown>[]) => {
    const changing = ops.map((op) => Object.keys(op)[0]).find((name) => name !== 'insertOne');
    if (changing) refuse(`bulkWrite ${changing}`);
  });
}
