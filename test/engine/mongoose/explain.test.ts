import { Schema } from 'mongoose';
import { beforeAll, describe, expect, it } from 'vitest';
import { mongooseOnEngine } from '../support/mongoose-on-engine.js';

/**
 * Mongoose's explain helpers (`Query#explain`, `Aggregate#explain`) on the
 * engine: a user sees whether a query uses the schema's index, and
 * explaining an update through mongoose leaves the data as it was.
 */
const conn = mongooseOnEngine('mongoose_explain');

const itemSchema = new Schema({ sku: { type: String, index: true }, qty: Number });

beforeAll(async () => {
  const Item = conn.model('Item', itemSchema);
  await Item.init();
  await Item.insertMany([{ sku: 'a', qty: 1 }, { sku: 'b', qty: 2 }, { sku: 'c', qty: 3 }]);
});

/** The innermost stage of a winning plan. */
function accessStage(plan: Record<string, unknown>): Record<string, unknown> {
  let stage = plan;
  while (stage.inputStage) stage = stage.inputStage as Record<string, unknown>;
  return stage;
}

describe('mongoose explain on the engine', () => {
  it('a find on the indexed path uses the schema index', async () => {
    const explained = (await conn.model('Item').find({ sku: 'b' }).explain('queryPlanner')) as unknown as { queryPlanner: { winningPlan: Record<string, unknown> } };
    expect(accessStage(explained.queryPlanner.winningPlan)).toMatchObject({ stage: 'IXSCAN', indexName: 'sku_1' });
  });

  it('a find on another path scans the collection, and executionStats counts the documents', async () => {
    const explained = (await conn.model('Item').find({ qty: { $gte: 2 } }).explain('executionStats')) as unknown as {
      executionStats: { nReturned: number; totalDocsExamined: number; executionStages: { stage: string } };
    };
    expect(explained.executionStats).toMatchObject({ nReturned: 2, totalDocsExamined: 3, executionStages: { stage: 'COLLSCAN' } });
  });

  it('an aggregate with a leading $match shows the index under $cursor', async () => {
    const explained = (await conn.model('Item').aggregate([{ $match: { sku: 'a' } }, { $group: { _id: null, n: { $sum: '$qty' } } }]).explain('queryPlanner')) as unknown as {
      stages: Array<{ $cursor?: { queryPlanner: { winningPlan: Record<string, unknown> } } }>;
    };
    expect(accessStage(explained.stages[0]!.$cursor!.queryPlanner.winningPlan)).toMatchObject({ stage: 'IXSCAN', indexName: 'sku_1' });
  });

  it('explaining an update does not apply it', async () => {
    const Item = conn.model('Item');
    const explained = (await Item.updateMany({ sku: 'c' }, { $set: { qty: 99 } }).explain('executionStats')) as unknown as {
      executionStats: { executionStages: { stage: string; nWouldModify: number } };
    };
    expect(explained.executionStats.executionStages).toMatchObject({ stage: 'UPDATE', nWouldModify: 1 });
    const stored = (await Item.findOne({ sku: 'c' }).lean()) as { qty?: number } | null;
    expect(stored?.qty).toBe(3);
  });
});
