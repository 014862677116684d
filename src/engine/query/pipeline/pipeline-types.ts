import type { Collation, Document } from '../types.js';

export interface PipelineContext {
  collation?: Collation;
  /** `let` variables. */
  variables?: Document;
  /** Documents of another collection of the same database ($lookup). */
  lookup(collection: string): Iterable<Document>;
}

export type Stage = (docs: Document[], spec: unknown, ctx: PipelineContext) => Document[];
