import stopword from 'stopword';
import stem from 'wink-porter2-stemmer';

/**
 * The languages a version 3 text index accepts (mongod's FTS language table:
 * `none` and fifteen Snowball languages, each also by its two-letter code,
 * matched case-insensitively), with what the engine can do for each.
 *
 * Stemming: only English has a stemmer here (wink-porter2-stemmer, Snowball's
 * English algorithm, as mongod uses). The other languages are accepted but not
 * stemmed, so a query for "chats" does not find "chat" in French as it would
 * on mongod.
 *
 * Stop words: English uses the Snowball English list, which is mongod's; the
 * `stopword` package's English list differs from it in about ninety words
 * ("no", "not", "she", "when" are stop words to mongod and not to the
 * package; "also", "like", "never" the other way round), so it would change
 * which documents match. The other languages use the `stopword` package's
 * list for the language, close to but not the same as mongod's.
 */

export interface TextLanguage {
  /** The canonical name: what mongod reports and compares. */
  name: string;
  stem(word: string): string;
  isStopWord(word: string): boolean;
}

/** mongod's Snowball English stop word list (snowballstem.org), with its contractions. */
const ENGLISH_STOP_WORDS = new Set(
  (
    "a about above after again against all am an and any are aren't as at be because been before being below " +
    "between both but by can't cannot could couldn't did didn't do does doesn't doing don't down during each few " +
    "for from further had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself " +
    "him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself let's me more most " +
    "mustn't my myself no nor not of off on once only or other ought our ours ourselves out over own same shan't " +
    "she she'd she'll she's should shouldn't so some such than that that's the their theirs them themselves then " +
    "there there's these they they'd they'll they're they've this those through to too under until up very was " +
    "wasn't we we'd we'll we're we've were weren't what what's when when's where where's which while who who's " +
    "whom why why's with won't would wouldn't you you'd you'll you're you've your yours yourself yourselves"
  ).split(' '),
);

const unstemmed = (word: string): string => word;

function packageStopWords(code: string): Set<string> {
  return new Set(stopword[code] ?? []);
}

function language(name: string, stemmer: (w: string) => string, stopWords: Set<string>): TextLanguage {
  return { name, stem: stemmer, isStopWord: (w) => stopWords.has(w) };
}

/** Built on first use: most collections never ask for a language but English. */
let table: Map<string, TextLanguage> | undefined;

function languageTable(): Map<string, TextLanguage> {
  if (table) return table;
  const entries: Array<[name: string, alias: string | undefined, TextLanguage]> = [
    ['none', undefined, language('none', unstemmed, new Set())],
    ['english', 'en', language('english', stem, ENGLISH_STOP_WORDS)],
    ...(
      [
        ['danish', 'da', 'dan'],
        ['dutch', 'nl', 'nld'],
        ['finnish', 'fi', 'fin'],
        ['french', 'fr', 'fra'],
        ['german', 'de', 'deu'],
        ['hungarian', 'hu', 'hun'],
        ['italian', 'it', 'ita'],
        ['norwegian', 'nb', 'nob'],
        ['portuguese', 'pt', 'por'],
        ['romanian', 'ro', 'ron'],
        ['russian', 'ru', 'rus'],
        ['spanish', 'es', 'spa'],
        ['swedish', 'sv', 'swe'],
        ['turkish', 'tr', 'tur'],
      ] as const
    ).map(([name, alias, code]): [string, string, TextLanguage] => [name, alias, language(name, unstemmed, packageStopWords(code))]),
  ];
  table = new Map();
  for (const [name, alias, lang] of entries) {
    table.set(name, lang);
    if (alias) table.set(alias, lang);
  }
  return table;
}

/** The language for a name or code, case-insensitively; undefined when mongod would not know it. */
export function findTextLanguage(name: string): TextLanguage | undefined {
  return languageTable().get(name.toLowerCase());
}
