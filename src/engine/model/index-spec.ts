import type { Document } from './document.js';

/** An index as createIndexes gives it and listIndexes answers it; the catalog keeps it, storage/ builds its entries. */
export interface IndexSpec {
  /** e.g. "email_1" */
  name: string;
  key: Record<string, number | string>;
  v?: number;
  unique?: boolean;
  sparse?: boolean;
  partialFilterExpression?: Document;
  expireAfterSeconds?: number;
  collation?: { locale: string; strength?: number; [k: string]: unknown };
  [option: string]: unknown;
}
