/**
 * Types for the two text-search dependencies, which ship none.
 */

declare module 'wink-porter2-stemmer' {
  /** Snowball's English (Porter2) stemmer; lower-cases its input first. */
  function stem(word: string): string;
  export = stem;
}

declare module 'stopword' {
  /** Stop word lists keyed by ISO 639-3 code (`eng`, `fra`, `deu`, ...), plus the helper. */
  const stopword: Record<string, readonly string[]> & {
    removeStopwords(tokens: string[], stopwords?: readonly string[]): string[];
  };
  export = stopword;
}
