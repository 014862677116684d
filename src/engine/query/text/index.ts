/** Text indexes and `$text` (see the files for mongod's rules each follows). */
export { fixTextIndexSpec, isTextIndexKey, isTextIndexSpec } from './text-index-spec.js';
export { planTextFilter } from './text-filter.js';
export type { TextExplain, TextFilter } from './text-filter.js';
export { containsText, textScoreUnavailable, usesTextScore } from './text-query.js';
export { carryTextScore, setTextScore, textScoreOf } from './text-meta.js';
export { checkTextLanguages, textIndexInfo } from './text-search.js';
