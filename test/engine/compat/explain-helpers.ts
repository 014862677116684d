import type { Document } from 'mongodb';
import type { LooseCollection } from './compat-cases.js';

/** What the index cases compare: ids of documents, in order or sorted, and the shape of a winning plan. */
export const ids = (docs: Document[]) => docs.map((d) => d._id);
export const sortedIds = (docs: Document[]) => ids(docs).sort((x, y) => Number(x) - Number(y));

/** The access stage of a winning plan: its IXSCAN's pattern and bounds, or COLLSCAN. */
export function access(plan: Document): Document {
  let stage = plan;
  while (stage.inputStage) stage = stage.inputStage;
  return stage.stage === 'IXSCAN' ? { stage: 'IXSCAN', keyPattern: stage.keyPattern, indexName: stage.indexName, indexBounds: stage.indexBounds } : { stage: stage.stage };
}

/** The stages of a plan from the top down (one input each). */
export function stages(plan: Document): string[] {
  const out: string[] = [];
  for (let stage: Document | undefined = plan; stage; stage = stage.inputStage) out.push(stage.stage);
  return out;
}

/** The winning plan of a find (`options`: sort, hint, ...). */
export const winning = async (c: LooseCollection, filter: Document, options: Document = {}) =>
  (await c.find(filter, options).explain('queryPlanner')).queryPlanner.winningPlan as Document;
