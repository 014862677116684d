/**
 * How a read may be narrowed by an index; made by query/planner.ts from a
 * filter. Bounds apply to the index's FIRST key field. The storage returns a
 * superset of the matching documents; the caller still applies the filter.
 */
export interface ScanPlan {
  index: string;
  /** Equality values (an `$in` gives several). */
  equals?: unknown[];
  /** A range; either side may be open. */
  range?: { min?: unknown; minInclusive?: boolean; max?: unknown; maxInclusive?: boolean };
  /**
   * Compound bounds (query/index-sort.ts), instead of `equals`/`range`: one
   * equality value on each leading key field, then a range on the next. The
   * scan then yields the index's full key order.
   */
  keyBounds?: {
    equals: unknown[];
    range?: { min?: unknown; minInclusive?: boolean; max?: unknown; maxInclusive?: boolean };
    /** Instead of a range: one of these values on the next key field (a `$in`), one run each. */
    points?: unknown[];
  };
  /**
   * A wildcard index's scan: the path whose `$_path` entries it reads (its
   * keyBounds hold the path where the key pattern has its `$**` field), and
   * whether it reads that path's subpaths too (`$exists`).
   */
  wildcard?: { path: string; subpaths?: boolean };
  /** Walk the index from its last key to its first (a sort in the index's reverse order). */
  backward?: boolean;
}
