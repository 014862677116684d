/**
 * Collated string comparison, below both query/ (filters, sorts) and
 * storage/ (index keys): one collation key decides which strings are equal,
 * so a unique index with a collation refuses exactly what a query under that
 * collation calls equal, as mongod's ICU sort keys do.
 */
export type { Collation } from './collator.js';
export { intlLocaleOf, isSimpleCollation } from './collator.js';
export { collationKey, compareCollated, ignorableCharacters } from './collation-key.js';
