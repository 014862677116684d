import type { Collation, Document } from '../types.js';

export interface FilterOptions {
  collation?: Collation;
  /** `let` variables for `$expr`. */
  variables?: Document;
  /** The query's resolved $near/$nearSphere (query/geo/near.ts); without it a near operator is refused. */
  near?: { test(leaves: unknown[]): boolean };
  /** The query's `$text` search where it sits in a `$or` clause (query/text/text-filter.ts); elsewhere it is split off first. */
  text?: (doc: Document) => boolean;
}

/** Whole-document test. */
export type Predicate = (doc: Document) => boolean;

/** Tests the values a path reaches (`getPathValues` leaves: array leaves unexpanded). */
export type LeafMatcher = (leaves: unknown[]) => boolean;

/** What an operator may compile recursively ($not, $elemMatch, $all need it). */
export interface FilterContext {
  options: FilterOptions;
  compileFilter(filter: Document): Predicate;
  /** An operator object ({$gt: 1, $lt: 5}) or a plain value (equality) for one path. */
  compileFieldCondition(condition: unknown): LeafMatcher;
}

/** Compiles one `$op: operand` of a field condition; siblings are the whole operator object. */
export type FieldOperator = (operand: unknown, ctx: FilterContext, siblings: Document) => LeafMatcher;

/** Compiles one top-level `$op: operand` ($and, $expr, ...). */
export type TopLevelOperator = (operand: unknown, ctx: FilterContext) => Predicate;

/** Leaf matcher that passes when a leaf, or an element of an array leaf, passes `test`. */
export function anyCandidate(test: (value: unknown) => boolean): LeafMatcher {
  return (leaves) => {
    for (const leaf of leaves) {
      if (test(leaf)) return true;
      if (Array.isArray(leaf)) for (const el of leaf) if (test(el)) return true;
    }
    return false;
  };
}
