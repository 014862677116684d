import mongoose from 'mongoose';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  AppendOnlyViolation,
  AUDIT_EVENT_COLLECTION,
  AuditEventModel,
  AuditOutcome,
} from '../../src/audit/index.js';
import { serviceModelsOnEngine } from '../support/models-on-engine.js';
import { auditEvent } from './audit-event-fixture.js';

/** The audit model itself: records go in and are read, and nothing through it changes or removes one. */

serviceModelsOnEngine('audit_model_test');

const event = auditEvent;

const raw = () => mongoose.connection.db!.collection(AUDIT_EVENT_COLLECTION);

let id: mongoose.Types.ObjectId;
let before: unknown;

beforeEach(async () => {
  await raw().deleteMany({});
  id = (await AuditEventModel.create(event()))._id;
  before = await raw().findOne({ _id: id });
});

describe('audit events are append-only through the model', () => {
  it('stores a record in the auditevents collection, with its time', async () => {
    expect(before).toMatchObject({ action: 'menus.create', outcome: 'success', at: expect.any(Date) });
  });

  it('accepts more records (create, insertMany, bulkWrite inserts)', async () => {
    await AuditEventModel.insertMany([event({ requestId: 'req-2' })]);
    await AuditEventModel.bulkWrite([{ insertOne: { document: event({ requestId: 'req-3' }) } }]);
    expect(await raw().countDocuments({})).toBe(3);
  });

  const refusals: [string, () => Promise<unknown>][] = [
    ['updateOne', () => AuditEventModel.updateOne({ _id: id }, { $set: { outcome: 'failure' } })],
    ['updateMany', () => AuditEventModel.updateMany({}, { $set: { outcome: 'failure' } })],
    ['findOneAndUpdate', () => AuditEventModel.findOneAndUpdate({ _id: id }, { $set: { outcome: 'failure' } })],
    ['findByIdAndUpdate', () => AuditEventModel.findByIdAndUpdate(id, { $set: { outcome: 'failure' } })],
    ['replaceOne', () => AuditEventModel.replaceOne({ _id: id }, event({ action: 'menus.delete' }))],
    ['findOneAndReplace', () => AuditEventModel.findOneAndReplace({ _id: id }, event({ action: 'menus.delete' }))],
    ['deleteOne', () => AuditEventModel.deleteOne({ _id: id })],
    ['deleteMany', () => AuditEventModel.deleteMany({})],
    ['findOneAndDelete', () => AuditEventModel.findOneAndDelete({ _id: id })],
    ['findByIdAndDelete', () => AuditEventModel.findByIdAndDelete(id)],
    [
      'save of a changed record',
      async () => {
        const doc = await AuditEventModel.findById(id).orFail();
        doc.outcome = AuditOutcome.failure;
        return doc.save();
      },
    ],
    ['updateOne on a document', async () => (await AuditEventModel.findById(id).orFail()).updateOne({ $set: { ip: 'x' } })],
    ['deleteOne on a document', async () => (await AuditEventModel.findById(id).orFail()).deleteOne()],
    ['bulkWrite with an update', () => AuditEventModel.bulkWrite([{ updateOne: { filter: { _id: id }, update: { $set: { ip: 'x' } } } }])],
    ['bulkWrite with a delete', () => AuditEventModel.bulkWrite([{ deleteOne: { filter: { _id: id } } }])],
  ];

  it.each(refusals)('refuses %s and leaves the record as it was', async (_name, attempt) => {
    await expect(attempt()).rejects.toBeInstanceOf(AppendOnlyViolation);
    expect(await raw().findOne({ _id: id })).toEqual(before);
    expect(await raw().countDocuments({})).toBe(1);
  });
});
