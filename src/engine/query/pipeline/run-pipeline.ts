import type { Document } from '../types.js';
import type { PipelineContext } from './pipeline-types.js';
import { runStages } from './stages.js';

/**
 * Runs an aggregation pipeline (without $out/$merge: see splitOutputStage).
 * Stages never mutate their input documents (they build new ones), so the
 * input is not copied; results may share unchanged sub-values with it.
 */
export function runPipeline(docs: Iterable<Document>, pipeline: Document[], ctx: PipelineContext): Document[] {
  return runStages([...docs], pipeline, ctx);
}
