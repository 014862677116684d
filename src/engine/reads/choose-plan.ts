import { mongoError } from '../errors.js';
import type { IndexSpec, ScanPlan } from '../model/index.js';
import {
  conditionsOf, hashedFieldPosition, isWildcardIndex, naturalDirection, planQuery, planSortedScan, planWildcard, sortedScanFor,
} from '../query/index.js';
import type { Collation, Document } from '../query/types.js';
import type { CollectionInfo, Storage } from '../storage/types.js';
import { READS_PER_CLOCK_CHECK, type TimeBudget } from './time-budget.js';

/**
 * Chooses how a read scans, between an index that bounds it (planner.ts:
 * the filter's tightest first-field bounds, then a blocking sort) and an
 * index that gives the requested order (query/index-sort.ts: no sort, and
 * the scan stops after skip + limit matches).
 *
 * Between the two, in the spirit of mongod's multi-planner trial ("the first
 * plan to fill a batch or finish wins"): the blocking plan returns nothing
 * before it has read all its N candidates (N is counted from the index
 * without reading documents), so the sorted plan runs first with a budget of
 * N documents (and one more step: a tie goes to the plan with no sort). If
 * it finds the `need` matches it must return (or runs out of keys) within
 * them it wins and keeps what it read; otherwise the bounded plan wins. A sorted plan with no competitor wins outright, as an indexed
 * plan beats a collection scan and sort in mongod. A hint limits the choice
 * to the hinted index, which gives the order when it can.
 */

export interface ChosenRead {
  plan?: ScanPlan;
  /** The scan yields the sort's order: no blocking sort, and it may stop early. */
  sorted: boolean;
  /** A sorted plan's trial: the matches it read, in order, and its scan to continue. */
  started?: { matched: Document[]; rest: Iterator<Document>; examined: number };
  /** A sorted plan's scan decodes only these top-level fields (ChooseOptions.fields). */
  fields?: ReadonlySet<string>;
}

export interface ChooseOptions {
  filter: Document;
  sort?: Document;
  /** The resolved hint (already checked to exist). */
  hinted?: IndexSpec;
  collation?: Collation;
  /** Matches the read must produce before it can answer: skip + limit, or skip + a first batch. */
  need: number;
  matches: (doc: Document) => boolean;
  /** Decode only these top-level fields (ReadOptions.onlyStoredBytes). */
  fields?: ReadonlySet<string>;
  /** The read's maxTimeMS: the trial counts against it too. */
  budget?: TimeBudget;
}

/** mongod ends a plan trial once a plan has produced a full default first batch (internalQueryPlanEvaluationMaxResults). */
export const TRIAL_RESULTS = 101;

/** A sort an index could give: non-empty and not `$natural`. */
export function indexableSort(sort: Document | undefined): Document | undefined {
  return sort && Object.keys(sort).length > 0 && naturalDirection(sort) === undefined ? sort : undefined;
}

export function chooseRead(storage: Storage, info: CollectionInfo, opts: ChooseOptions): ChosenRead {
  const { filter, hinted, collation } = opts;
  const sort = indexableSort(opts.sort);
  const multikey = sort ? new Set(storage.multikeyIndexes(info.db, info.name)) : new Set<string>();
  if (hinted) {
    const scan = sort && sortedScanFor(hinted, filter, sort, collation, multikey.has(hinted.name));
    if (scan) return { plan: scan.plan, sorted: true, fields: opts.fields };
    return { plan: hintedPlan(hinted, filter, collation), sorted: false };
  }
  const bounded = planQuery(filter, info.indexes, collation);
  const scan = sort && planSortedScan(filter, info.indexes, sort, collation, multikey);
  if (!scan) return { plan: bounded, sorted: false };
  if (!bounded || (bounded.index === scan.plan.index && scan.tightness > 0)) return { plan: scan.plan, sorted: true, fields: opts.fields };
  return trial(storage, info, scan.plan, bounded, opts);
}

/**
 * The scan of a hinted index: its bounds for the filter; else a hashed index
 * is scanned whole (in its hash order, as mongod's), and a wildcard index,
 * which holds only the documents with a leaf on its paths, cannot answer
 * (mongod: NoQueryExecutionPlans).
 */
function hintedPlan(hinted: IndexSpec, filter: Document, collation: Collation | undefined): ScanPlan | undefined {
  const plan = planQuery(filter, [hinted], collation);
  if (plan) return plan;
  if (hashedFieldPosition(hinted) >= 0) return { index: hinted.name };
  if (isWildcardIndex(hinted)) {
    // Hinted, a partial wildcard index still answers (its membership is checked on each document).
    const wildcard = planWildcard(hinted, conditionsOf(filter));
    if (wildcard) return wildcard.plan;
    throw mongoError('NoQueryExecutionPlans', 'error processing query: planner returned error :: caused by :: No query solutions');
  }
  return undefined;
}

function trial(storage: Storage, info: CollectionInfo, sorted: ScanPlan, bounded: ScanPlan, opts: ChooseOptions): ChosenRead {
  const budget = storage.countKeys(info.db, info.name, bounded);
  const rest = storage.scan(info.db, info.name, sorted, opts.fields)[Symbol.iterator]();
  const matched: Document[] = [];
  let examined = 0;
  let finished = false;
  // One step past the budget: the blocking plan still has its sort to do, so a tie goes to the sorted plan.
  while (examined <= budget) {
    const next = rest.next();
    if (next.done) {
      finished = true;
      break;
    }
    examined++;
    if (opts.budget && examined % READS_PER_CLOCK_CHECK === 0) opts.budget.check();
    if (opts.matches(next.value)) matched.push(next.value);
    if (matched.length >= opts.need) break;
  }
  const won = finished || matched.length >= opts.need;
  return won ? { plan: sorted, sorted: true, started: { matched, rest, examined }, fields: opts.fields } : { plan: bounded, sorted: false };
}

/** The documents of a sorted plan, from its trial on (or from the start), filtered. */
export function* sortedMatches(storage: Storage, info: CollectionInfo, chosen: ChosenRead, matches: (doc: Document) => boolean): Generator<Document> {
  const started = chosen.started;
  if (started) yield* started.matched;
  const rest = started?.rest ?? storage.scan(info.db, info.name, chosen.plan, chosen.fields)[Symbol.iterator]();
  for (let next = rest.next(); !next.done; next = rest.next()) if (matches(next.value)) yield next.value;
}
