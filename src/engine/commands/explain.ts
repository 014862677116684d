import os from 'node:os';
import { mongoError } from '../errors.js';
import { collectionParam, missingField, nonNegativeInteger, optionalArray, optionalDocument, optionalInteger, optionalString, letParam } from '../params/index.js';
import { applyUpdate } from '../query/index.js';
import type { Collation, Document } from '../query/types.js';
import { isPlainObject, toDouble } from '../query/values.js';
import { collationFor, isView } from '../reads/index.js';
import { serverFacts } from '../standalone/index.js';
import { explainRead, parseQuery, verbosityParam, type ReadExplain, type ReadSpec, type Verbosity } from './explain-plan.js';
import type { CommandContext, CommandHandler } from './types.js';

/**
 * explain: `{explain: {find|aggregate|count|distinct|update|delete|findAndModify: ...}, verbosity}`.
 * Answers mongod's shape (explainVersion, queryPlanner, executionStats for
 * the executing verbosities, serverInfo, command) from the engine's own
 * planner. Explaining a write never writes: it only reads what the write
 * would touch. The registry passes `isKnownCommand` (explain of a command
 * that exists but cannot be explained is IllegalOperation, not 59).
 */
export function createExplainCommand(isKnownCommand: (name: string) => boolean): CommandHandler {
  return {
    name: 'explain',
    help: "explain a command's plan: {explain: {find: <collection>, ...}, verbosity: 'queryPlanner' | 'executionStats' | 'allPlansExecution'}",
    handle(body, ctx) {
      const inner = body.explain;
      if (!isPlainObject(inner)) {
        throw mongoError('TypeMismatch', "BSON field 'explain.explain' is the wrong type, expected type 'object'");
      }
      const verbosity = verbosityParam(body.verbosity);
      const name = Object.keys(inner)[0] ?? '';
      const explainer = EXPLAINERS[name];
      if (!explainer) {
        if (!isKnownCommand(name)) throw mongoError('CommandNotFound', `Explain failed due to unknown command: ${name}`);
        throw mongoError('IllegalOperation', `Cannot explain cmd: ${name}`);
      }
      return explainer(inner, ctx, verbosity);
    },
  };
}

type Explainer = (body: Document, ctx: CommandContext, verbosity: Verbosity) => Document;

const EXPLAINERS: Readonly<Record<string, Explainer>> = {
  find: explainFind,
  aggregate: explainAggregate,
  count: explainCount,
  distinct: explainDistinct,
  update: explainUpdate,
  delete: explainDelete,
  findAndModify: explainFindAndModify,
  findandmodify: explainFindAndModify,
};

const executes = (verbosity: Verbosity): boolean => verbosity !== 'queryPlanner';

/** The reply around one read's plan: queryPlanner, executionStats, serverInfo, command. */
function reply(ctx: CommandContext, coll: string, command: Document, verbosity: Verbosity, read: ReadExplain, wrap: WrapStage = (s) => s): Document {
  const out: Document = {
    explainVersion: '1',
    queryPlanner: queryPlanner(ctx, coll, read, wrap),
  };
  if (executes(verbosity) && read.execution) out.executionStats = executionStats(read, verbosity, wrap);
  out.command = { ...command, $db: ctx.db };
  out.serverInfo = serverInfo();
  return out;
}

/** Puts a stage over the read's plan (UPDATE, DELETE, COUNT, ...); `stats` when executed. */
type WrapStage = (plan: Document, stats?: Document) => Document;

function queryPlanner(ctx: CommandContext, coll: string, read: ReadExplain, wrap: WrapStage): Document {
  return {
    namespace: `${ctx.db}.${coll}`,
    indexFilterSet: false,
    parsedQuery: read.parsedQuery,
    maxIndexedOrSolutionsReached: false,
    maxIndexedAndSolutionsReached: false,
    maxScansToExplodeReached: false,
    winningPlan: wrap(read.winningPlan),
    rejectedPlans: [],
  };
}

function executionStats(read: ReadExplain, verbosity: Verbosity, wrap: WrapStage, nReturned = read.execution!.returned.length): Document {
  const run = read.execution!;
  return {
    executionSuccess: true,
    nReturned,
    executionTimeMillis: run.millis,
    totalKeysExamined: run.keysExamined,
    totalDocsExamined: run.docsExamined,
    executionStages: wrap(run.stages, run.stages),
    ...(verbosity === 'allPlansExecution' ? { allPlansExecution: [] } : {}),
  };
}

function serverInfo(): Document {
  return { host: os.hostname(), version: serverFacts.version, gitVersion: serverFacts.gitVersion };
}

function readSpec(body: Document, command: string, filterField: string): ReadSpec {
  return {
    filter: optionalDocument(body, command, filterField) ?? {},
    sort: optionalDocument(body, command, 'sort'),
    projection: optionalDocument(body, command, 'projection'),
    skip: nonNegativeInteger(body, command, 'skip'),
    limit: nonNegativeInteger(body, command, 'limit'),
    hint: body.hint,
    collation: optionalDocument(body, command, 'collation') as Collation | undefined,
    variables: letParam(body, command),
  };
}

function explainFind(body: Document, ctx: CommandContext, verbosity: Verbosity): Document {
  const coll = collectionParam(body, 'find');
  const view = viewSource(ctx, coll);
  if (view) {
    // mongod explains a find on a view as the aggregation it becomes.
    const spec = readSpec(body, 'find', 'filter');
    const pipeline: Document[] = [...view.pipeline, { $match: spec.filter }];
    if (spec.sort) pipeline.push({ $sort: spec.sort });
    if (spec.skip) pipeline.push({ $skip: spec.skip });
    if (spec.limit) pipeline.push({ $limit: spec.limit });
    if (spec.projection) pipeline.push({ $project: spec.projection });
    return { ...explainAggregate({ aggregate: view.source, pipeline, cursor: {} }, ctx, verbosity), command: { ...body, $db: ctx.db } };
  }
  const read = explainRead(ctx.engine.storage, ctx.db, coll, readSpec(body, 'find', 'filter'), executes(verbosity));
  return reply(ctx, coll, body, verbosity, read);
}

function explainCount(body: Document, ctx: CommandContext, verbosity: Verbosity): Document {
  const coll = collectionParam(body, 'count');
  const spec = readSpec(body, 'count', 'query');
  spec.limit = Math.abs(optionalInteger(body, 'count', 'limit') ?? 0);
  if (Object.keys(spec.filter).length === 0 && spec.hint === undefined) {
    // An unfiltered count reads the collection's size, not its documents.
    const read = explainRead(ctx.engine.storage, ctx.db, coll, { filter: {} }, false);
    const count = ctx.engine.storage.count(ctx.db, coll);
    const fast = { stage: 'RECORD_STORE_FAST_COUNT' };
    const out = reply(ctx, coll, body, verbosity, { ...read, winningPlan: fast });
    if (executes(verbosity)) {
      out.executionStats = {
        executionSuccess: true, nReturned: 0, executionTimeMillis: 0, totalKeysExamined: 0, totalDocsExamined: 0,
        executionStages: { ...fast, nReturned: 0, executionTimeMillisEstimate: 0, nCounted: count, nSkipped: 0 },
        ...(verbosity === 'allPlansExecution' ? { allPlansExecution: [] } : {}),
      };
    }
    return out;
  }
  const read = explainRead(ctx.engine.storage, ctx.db, coll, spec, executes(verbosity));
  const counted = read.execution?.returned.length ?? 0;
  const wrap: WrapStage = (plan, stats) =>
    stats ? { stage: 'COUNT', nReturned: 0, nCounted: counted, nSkipped: spec.skip ?? 0, inputStage: plan } : { stage: 'COUNT', inputStage: plan };
  const out = reply(ctx, coll, body, verbosity, read, wrap);
  if (out.executionStats) (out.executionStats as Document).nReturned = 0;
  return out;
}

function explainDistinct(body: Document, ctx: CommandContext, verbosity: Verbosity): Document {
  const coll = collectionParam(body, 'distinct');
  const key = optionalString(body, 'distinct', 'key');
  if (key === undefined) throw missingField('distinct', 'key');
  const spec = readSpec(body, 'distinct', 'query');
  spec.collation = collationFor(ctx.engine.storage, ctx.db, coll, spec.collation);
  const read = explainRead(ctx.engine.storage, ctx.db, coll, spec, executes(verbosity));
  const projection = { stage: 'PROJECTION_SIMPLE', transformBy: { [key]: 1, _id: 0 } };
  const wrap: WrapStage = (plan, stats) => ({ ...projection, ...(stats ? { nReturned: read.execution!.returned.length } : {}), inputStage: plan });
  return reply(ctx, coll, body, verbosity, read, wrap);
}

/** `{explain: {update: <coll>, updates: [one statement]}}`: the documents it would match and modify. */
function explainUpdate(body: Document, ctx: CommandContext, verbosity: Verbosity): Document {
  const coll = collectionParam(body, 'update');
  const statement = singleStatement(body, 'update', 'updates');
  const q = optionalDocument(statement, 'update.updates', 'q');
  if (q === undefined) throw missingField('update.updates', 'q');
  const u = statement.u;
  if (!isPlainObject(u) && !Array.isArray(u)) throw mongoError('FailedToParse', "BSON field 'update.updates.u' must be an object or an array");
  const multi = statement.multi === true;
  const upsert = statement.upsert === true;
  const collation = collationFor(ctx.engine.storage, ctx.db, coll, optionalDocument(statement, 'update.updates', 'collation') as Collation | undefined);
  const variables = letParam(body, 'update');
  const spec: ReadSpec = { filter: q, hint: statement.hint, collation, variables, limit: multi ? 0 : 1, implicitLimit: true };
  const read = explainRead(ctx.engine.storage, ctx.db, coll, spec, executes(verbosity));
  const arrayFilters = optionalArray(statement, 'update.updates', 'arrayFilters') as Document[] | undefined;
  return writeReply(reply(ctx, coll, body, verbosity, read, updateStage(read, u as Document | Document[], { filter: q, arrayFilters, collation, variables }, upsert)));
}

/** A write returns no documents: its executionStats say nReturned 0 (the counts are nMatched, nWouldDelete...). */
function writeReply(out: Document): Document {
  if (out.executionStats) (out.executionStats as Document).nReturned = 0;
  return out;
}

function updateStage(
  read: ReadExplain,
  update: Document | Document[],
  opts: { filter: Document; arrayFilters?: Document[]; collation?: Collation; variables?: Document },
  upsert: boolean,
): WrapStage {
  return (plan, stats) => {
    if (!stats) return { stage: 'UPDATE', inputStage: plan };
    const matched = read.execution!.returned;
    // Applied to copies only: nothing is written.
    const wouldModify = matched.filter((doc) => applyUpdate(structuredClone(doc), update, { isInsert: false, ...opts }).modified).length;
    return {
      stage: 'UPDATE',
      nReturned: 0,
      nMatched: matched.length,
      nWouldModify: wouldModify,
      nWouldUpsert: upsert && matched.length === 0 ? 1 : 0,
      inputStage: plan,
    };
  };
}

/** `{explain: {delete: <coll>, deletes: [one statement]}}`: the documents it would remove. */
function explainDelete(body: Document, ctx: CommandContext, verbosity: Verbosity): Document {
  const coll = collectionParam(body, 'delete');
  const statement = singleStatement(body, 'delete', 'deletes');
  const q = optionalDocument(statement, 'delete.deletes', 'q');
  if (q === undefined) throw missingField('delete.deletes', 'q');
  if (statement.limit === undefined) throw missingField('delete.deletes', 'limit');
  const limit = toDouble(statement.limit);
  const collation = optionalDocument(statement, 'delete.deletes', 'collation') as Collation | undefined;
  const spec: ReadSpec = { filter: q, hint: statement.hint, collation, variables: letParam(body, 'delete'), limit: limit === 1 ? 1 : 0, implicitLimit: true };
  const read = explainRead(ctx.engine.storage, ctx.db, coll, spec, executes(verbosity));
  const wrap: WrapStage = (plan, stats) =>
    stats ? { stage: 'DELETE', nReturned: 0, nWouldDelete: read.execution!.returned.length, inputStage: plan } : { stage: 'DELETE', inputStage: plan };
  return writeReply(reply(ctx, coll, body, verbosity, read, wrap));
}

/** findAndModify: the one document it would find (in sort order), updated or removed on paper. */
function explainFindAndModify(body: Document, ctx: CommandContext, verbosity: Verbosity): Document {
  const command = Object.keys(body)[0]!;
  const coll = collectionParam(body, command);
  const query = optionalDocument(body, command, 'query') ?? {};
  const remove = body.remove === true;
  const update = body.update;
  if (!remove && !isPlainObject(update) && !Array.isArray(update)) {
    throw mongoError('FailedToParse', 'Either an update or remove=true must be specified');
  }
  const collation = collationFor(ctx.engine.storage, ctx.db, coll, optionalDocument(body, command, 'collation') as Collation | undefined);
  const variables = letParam(body, command);
  const spec: ReadSpec = { filter: query, sort: optionalDocument(body, command, 'sort'), hint: body.hint, collation, variables, limit: 1, implicitLimit: true };
  const read = explainRead(ctx.engine.storage, ctx.db, coll, spec, executes(verbosity));
  const arrayFilters = optionalArray(body, command, 'arrayFilters') as Document[] | undefined;
  const wrap: WrapStage = remove
    ? (plan, stats) =>
        stats ? { stage: 'DELETE', nReturned: 0, nWouldDelete: read.execution!.returned.length, inputStage: plan } : { stage: 'DELETE', inputStage: plan }
    : updateStage(read, update as Document | Document[], { filter: query, arrayFilters, collation, variables }, body.upsert === true);
  return writeReply(reply(ctx, coll, body, verbosity, read, wrap));
}

/** mongod explains exactly one write statement. */
function singleStatement(body: Document, command: string, field: string): Document {
  const statements = optionalArray(body, command, field);
  if (statements === undefined) throw missingField(command, field);
  if (statements.length !== 1) throw mongoError('InvalidLength', 'explained write batches must be of size 1');
  const [statement] = statements;
  if (!isPlainObject(statement)) throw mongoError('TypeMismatch', `BSON field '${command}.${field}' must contain only objects`);
  return statement;
}

/**
 * aggregate: a pipeline that is only a `$match` (or empty) is explained like
 * a find; otherwise the read under it appears as the first stage's `$cursor`,
 * followed by the other stages as given (they are not run).
 */
export function explainAggregate(body: Document, ctx: CommandContext, verbosity: Verbosity): Document {
  const target = body.aggregate;
  const pipeline = (optionalArray(body, 'aggregate', 'pipeline') ?? []) as Document[];
  if (!pipeline.every(isPlainObject)) throw mongoError('TypeMismatch', "Each element of the 'pipeline' array must be an object");
  const command = { ...body };
  if (typeof target !== 'string') {
    return { explainVersion: '1', stages: pipeline, command: { ...command, $db: ctx.db }, serverInfo: serverInfo() };
  }
  const view = viewSource(ctx, collectionParam(body, 'aggregate'));
  if (view) return { ...explainAggregate({ ...body, aggregate: view.source, pipeline: [...view.pipeline, ...pipeline] }, ctx, verbosity), command: { ...command, $db: ctx.db } };
  const coll = collectionParam(body, 'aggregate');
  const first = pipeline[0];
  const leadingMatch = first && Object.keys(first)[0] === '$match' && isPlainObject(first.$match) ? (first.$match as Document) : undefined;
  const rest = leadingMatch ? pipeline.slice(1) : pipeline;
  const collation = collationFor(ctx.engine.storage, ctx.db, coll, optionalDocument(body, 'aggregate', 'collation') as Collation | undefined);
  const spec: ReadSpec = { filter: leadingMatch ?? {}, hint: body.hint, collation, variables: letParam(body, 'aggregate'), refuseNear: true };
  const read = explainRead(ctx.engine.storage, ctx.db, coll, spec, executes(verbosity));
  if (rest.length === 0) return reply(ctx, coll, command, verbosity, read);
  const cursor: Document = { queryPlanner: queryPlanner(ctx, coll, read, (s) => s) };
  if (executes(verbosity) && read.execution) cursor.executionStats = executionStats(read, verbosity, (s) => s);
  return {
    explainVersion: '1',
    stages: [{ $cursor: cursor }, ...rest],
    command: { ...command, $db: ctx.db },
    serverInfo: serverInfo(),
  };
}

/** For a view: the collection it reads at the bottom and the pipelines of every view on the way, in order. */
function viewSource(ctx: CommandContext, coll: string): { source: string; pipeline: Document[] } | undefined {
  let info = ctx.engine.storage.collection(ctx.db, coll);
  if (!info || !isView(info)) return undefined;
  let pipeline: Document[] = [];
  let source = coll;
  while (info && isView(info)) {
    pipeline = [...((info.options.pipeline as Document[] | undefined) ?? []), ...pipeline];
    source = info.options.viewOn as string;
    info = ctx.engine.storage.collection(ctx.db, source);
  }
  return { source, pipeline };
}
