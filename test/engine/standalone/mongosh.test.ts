import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEngineCli, exited, startEngineProcess, type EngineProcess } from '../durability/engine-process.js';
import { runNode, type NodeRun } from '../../support/child-process.js';
import { ROOT } from '../../support/test-build.js';
import { childEnv } from '../../support/service-process.js';

/**
 * mongosh, the shell people reach for first, against the standalone engine
 * (`npm run engine`): one script does CRUD, an index, an aggregation and
 * the inspection helpers (db.stats(), db.coll.stats(), explain(), show dbs)
 * and prints what they answered as canonical Extended JSON.
 */
const MONGOSH = path.join(ROOT, 'node_modules', 'mongosh', 'bin', 'mongosh.js');

const SCRIPT = `
const c = db.items;
const out = {};
out.insertedIds = Object.values(c.insertMany([{ _id: 1, n: 1, tag: 'a' }, { _id: 2, n: 2, tag: 'b' }, { _id: 3, n: 3, tag: 'a' }]).insertedIds);
out.modifiedCount = c.updateOne({ _id: 2 }, { $set: { n: 20 } }).modifiedCount;
out.deletedCount = c.deleteOne({ _id: 3 }).deletedCount;
c.insertOne({ _id: 4, n: 4, tag: 'a' });
out.found = c.find({}, { _id: 0, n: 1 }).sort({ _id: 1 }).toArray();
out.index = c.createIndex({ tag: 1 });
out.indexes = c.getIndexes().map((ix) => ix.name);
out.grouped = c.aggregate([{ $group: { _id: '$tag', total: { $sum: '$n' } } }, { $sort: { _id: 1 } }]).toArray();
out.counts = { countDocuments: c.countDocuments({ tag: 'a' }), estimated: c.estimatedDocumentCount() };
const s = db.stats();
out.dbStats = { db: s.db, collections: s.collections, objects: s.objects, indexes: s.indexes, hasSizes: s.dataSize > 0 && s.totalSize > 0 };
const cs = c.stats();
out.collStats = { ns: cs.ns, count: cs.count, nindexes: cs.nindexes, indexSizes: Object.keys(cs.indexSizes).sort(), sizeIsData: cs.size === c.dataSize() };
out.totals = c.totalSize() === c.storageSize() + c.totalIndexSize();
const ex = c.find({ tag: 'a' }).explain();
out.explainIndexed = { stage: ex.queryPlanner.winningPlan.stage, input: ex.queryPlanner.winningPlan.inputStage.stage, index: ex.queryPlanner.winningPlan.inputStage.indexName };
out.explainScan = c.find({ n: 1 }).explain('executionStats').executionStats.executionStages.stage;
out.explainUpdate = c.explain().update({ tag: 'b' }, { $set: { n: 0 } }).queryPlanner.winningPlan.stage;
out.afterExplain = c.findOne({ _id: 2 }).n;
out.validate = c.validate().valid;
out.showDbs = show('dbs').value.map((d) => d.name).filter((name) => name === db.getName());
out.showCollections = show('collections').value.map((entry) => entry.name);
out.serverStatus = typeof db.serverStatus().uptime;
out.version = db.version();
out.currentOp = Array.isArray(db.currentOp().inprog);
out.logComponents = db.getLogComponents().verbosity;
print(EJSON.stringify(out, { relaxed: false }));
`;

describe('mongosh against the standalone engine', () => {
  let workDir: string;
  let engine: EngineProcess;
  let result: NodeRun;

  beforeAll(async () => {
    workDir = mkdtempSync(path.join(os.tmpdir(), 'engine-mongosh-'));
    engine = await startEngineProcess(buildEngineCli(), path.join(workDir, 'db'));
    const uri = `${engine.uri.replace(/\/$/, '')}/mongosh_test`;
    // HOME: mongosh keeps its logs and history there; a scratch one keeps the machine's clean.
    result = await runNode(MONGOSH, [uri, '--quiet', '--norc', '--eval', SCRIPT, '--eval', 'show dbs'], {
      env: childEnv({ HOME: workDir, MONGOSH_NO_UPDATE_CHECK: '1' }),
      cwd: workDir,
    });
  }, 60_000);

  afterAll(async () => {
    if (engine) {
      engine.child.kill('SIGTERM');
      await exited(engine.child);
    }
    rmSync(workDir, { recursive: true, force: true });
  });

  /** The script's one line of canonical Extended JSON, read back with its types. */
  const printed = () => {
    const line = result.stdout.split('\n').find((l) => l.startsWith('{'));
    if (!line) throw new Error(`mongosh printed no JSON (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
    return JSON.parse(line) as Record<string, unknown>;
  };

  it('exits 0 without errors', () => {
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  });

  it('does CRUD, creates an index and aggregates', () => {
    expect(printed()).toMatchObject({
      insertedIds: [{ $numberInt: '1' }, { $numberInt: '2' }, { $numberInt: '3' }],
      modifiedCount: { $numberInt: '1' },
      deletedCount: { $numberInt: '1' },
      found: [{ n: { $numberInt: '1' } }, { n: { $numberInt: '20' } }, { n: { $numberInt: '4' } }],
      index: 'tag_1',
      indexes: ['_id_', 'tag_1'],
      grouped: [
        { _id: 'a', total: { $numberInt: '5' } },
        { _id: 'b', total: { $numberInt: '20' } },
      ],
      counts: { countDocuments: { $numberInt: '2' }, estimated: { $numberInt: '3' } },
    });
  });

  it('answers db.stats() and db.coll.stats() with counts and sizes', () => {
    expect(printed()).toMatchObject({
      dbStats: { db: 'mongosh_test', collections: { $numberInt: '1' }, objects: { $numberInt: '3' }, indexes: { $numberInt: '2' }, hasSizes: true },
      collStats: { ns: 'mongosh_test.items', count: { $numberInt: '3' }, nindexes: { $numberInt: '2' }, indexSizes: ['_id_', 'tag_1'], sizeIsData: true },
      totals: true,
      validate: true,
    });
  });

  it('explain() shows the index a query uses, a collection scan otherwise, and explaining an update changes nothing', () => {
    expect(printed()).toMatchObject({
      explainIndexed: { stage: 'FETCH', input: 'IXSCAN', index: 'tag_1' },
      explainScan: 'COLLSCAN',
      explainUpdate: 'UPDATE',
      afterExplain: { $numberInt: '20' },
    });
  });

  it('show dbs and show collections list the database and its collection', () => {
    expect(printed()).toMatchObject({ showDbs: ['mongosh_test'], showCollections: ['items'] });
    // The last --eval is the shell command itself, printed as a table: name and size.
    expect(result.stdout).toMatch(/^mongosh_test\s+\d+(\.\d+)? KiB$/m);
  });

  it('answers the server helpers (serverStatus, version, currentOp, getLogComponents)', () => {
    expect(printed()).toMatchObject({ serverStatus: 'number', version: '7.0.0', currentOp: true, logComponents: { $numberInt: '0' } });
  });
});
