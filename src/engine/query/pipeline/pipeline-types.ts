import type { Collation, Document } from '../types.js';

export interface PipelineContext {
  collation?: Collation;
  /** `let` variables. */
  variables?: Document;
  /** Documents of another collection of the same database ($lookup). */
  lookup(collection: string): Iterable<Document>;
  /** Lifts the blocking sort's memory limit (bounded-sort.ts). */
  allowDiskUse?: boolean;
  /** The blocking sort's memory limit in bytes (tests); mongod's 100 MiB otherwise. */
  maxSortBytes?: number;
  /** $group's memory limit in bytes (tests); mongod's 100 MiB otherwise (group-memory.ts). */
  maxGroupBytes?: number;
}

export type Stage = (docs: Document[], spec: unknown, ctx: PipelineContext) => Document[];

/** One $group accumulator's state for one group (accumulators.ts, accumulators-n.ts). */
export interface Accumulator {
  add(doc: Document): void;
  result(): unknown;
}
