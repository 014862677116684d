import type { ReturnModelType } from '@typegoose/typegoose';
import { trusted } from 'mongoose';

/**
 * `users(search)` through an index, not a scan: every user stores
 * `searchKeys`, the lowercased words (runs of letters and digits) of its
 * email, first name and last name, each with its prefixes up to
 * PREFIX_KEY_LENGTH characters. A search matches a user when each of its
 * words begins a word of those fields, so each search word is one equality
 * on the multikey index `{searchKeys: 1, tenant_id: 1}`. Substrings inside a
 * word no longer match: indexing every substring would multiply the keys.
 */

/** Prefixes longer than this are not stored: a longer search word is checked against the stored whole words. */
export const PREFIX_KEY_LENGTH = 12;

export interface SearchableUser {
  email?: string | null;
  firstName?: string | null;
  lastName?: string | null;
}

/** The words of a text as the search compares them: lowercased runs of letters and digits. */
export function searchWords(text: string): string[] {
  return [...new Set(text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 0))];
}

/** What a user stores in `searchKeys`: each word, and its prefixes up to PREFIX_KEY_LENGTH (each once). */
export function searchKeysOf(user: SearchableUser): string[] {
  const keys = new Set<string>();
  for (const word of searchWords([user.email, user.firstName, user.lastName].filter(Boolean).join(' '))) {
    for (let length = 1; length <= Math.min(word.length, PREFIX_KEY_LENGTH); length++) keys.add(word.slice(0, length));
    keys.add(word);
  }
  return [...keys];
}

/**
 * The filter conditions of a search (all must hold), longest word first: the
 * planner bounds the read with the first, and a longer prefix is usually the
 * rarer one. A word longer than the stored prefixes is bounded by its prefix
 * and must also begin one of the stored whole words.
 */
export function searchConditions(search: string): Array<Record<string, unknown>> {
  const words = searchWords(search).sort((a, b) => b.length - a.length);
  return words.flatMap((word) =>
    word.length <= PREFIX_KEY_LENGTH
      ? [{ searchKeys: word }]
      : [{ searchKeys: word.slice(0, PREFIX_KEY_LENGTH) }, { searchKeys: trusted({ $regex: `^${escapeRegExp(word)}` }) }],
  );
}

/** Whether a search has a word at all (letters or digits): one without would match nothing through the index. */
export const SEARCH_WORD_PATTERN = /[\p{L}\p{N}]/u;

/**
 * Users written without the service (imports, records from before search
 * keys existed) get their keys at start, in batches: until then a search
 * cannot find them. Returns how many were given keys.
 */
export async function backfillSearchKeys(model: ReturnModelType<new () => SearchableUser>, batchSize = 1000): Promise<number> {
  let done = 0;
  for (;;) {
    const batch = await model
      .find({ searchKeys: trusted({ $exists: false }) }, { email: 1, firstName: 1, lastName: 1 })
      .limit(batchSize)
      .lean<Array<SearchableUser & { _id: unknown }>>();
    if (batch.length === 0) return done;
    await model.bulkWrite(
      batch.map((user) => ({ updateOne: { filter: { _id: user._id }, update: { $set: { searchKeys: searchKeysOf(user) } }, timestamps: false } })),
    );
    done += batch.length;
  }
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
