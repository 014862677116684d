/**
 * The text score of a document a `$text` query matched: metadata, kept
 * beside the document (never in it, so it is not stored or sent) until a
 * `{$meta: "textScore"}` projection, sort or expression reads it. Stages
 * that build a new document from one (projection, $addFields) carry it over.
 */
const scores = new WeakMap<object, number>();

export function setTextScore(doc: object, score: number): void {
  scores.set(doc, score);
}

export function textScoreOf(doc: unknown): number | undefined {
  return typeof doc === 'object' && doc !== null ? scores.get(doc) : undefined;
}

/** Gives `to` the score of `from`, when it has one. */
export function carryTextScore(from: object, to: object): void {
  const score = scores.get(from);
  if (score !== undefined && from !== to) scores.set(to, score);
}
