/**
 * The shapes query/ and storage/ share, below both (as collation/ is): a
 * document of the value model, an index's spec, and the scan plan query/'s
 * planner makes and storage/ follows. Types only; imports nothing of the engine.
 */
export type { Document } from './document.js';
export type { IndexSpec } from './index-spec.js';
export type { ScanPlan } from './scan-plan.js';
