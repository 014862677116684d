import type { Collation, Document } from '../types.js';

export interface UpdateOptions {
  /** True when the update builds an upserted document ($setOnInsert applies). */
  isInsert: boolean;
  arrayFilters?: Document[];
  /** The query filter, for the positional `$`. */
  filter?: Document;
  collation?: Collation;
  /** The time `$currentDate` and `$$NOW` use. */
  now?: Date;
  /** `let` variables for pipeline-style updates. */
  variables?: Document;
}

export interface UpdateResult {
  doc: Document;
  modified: boolean;
}

/** What an operator does at one concrete path. */
export type FieldChange = { kind: 'set'; value: unknown } | { kind: 'unset' } | { kind: 'none' };

export interface ApplyContext {
  now: Date;
  collation?: Collation;
  /** `{ _id: ... }` of the document, for error messages. */
  docId: Document;
}

/** One compiled `$op: {path: operand}` entry. */
export interface FieldAction {
  /** Whether the operator creates the path when it is missing. */
  creates: boolean;
  apply(current: unknown, exists: boolean, path: string, ctx: ApplyContext): FieldChange;
}

export type FieldOperatorCompiler = (operand: unknown, path: string) => FieldAction;
