import { mongoError } from '../../errors.js';
import { cloneValue } from '../values.js';
import type { Document } from '../types.js';
import { STAGES } from './stages.js';

/** Stages an update pipeline may use. */
const UPDATE_STAGES = new Set(['$addFields', '$set', '$project', '$unset', '$replaceRoot', '$replaceWith']);

/** Applies a pipeline-style update to one document. */
export function applyUpdatePipeline(doc: Document, pipeline: Document[], options: { now?: Date; variables?: Document } = {}): Document {
  let docs = [cloneValue(doc)];
  // The statement's time when the command bound one (params/letParam), so every document gets the same.
  const variables = { ...options.variables, NOW: options.now ?? options.variables?.NOW ?? new Date() };
  for (const stage of pipeline) {
    const name = Object.keys(stage ?? {})[0] ?? '';
    if (!UPDATE_STAGES.has(name)) {
      throw mongoError('InvalidOptions', `${name} is not allowed to be used within an update`);
    }
    docs = STAGES[name]!(docs, stage[name], { variables, lookup: () => [] });
  }
  return docs[0]!;
}
