import { Schema, type Model } from 'mongoose';
import { beforeAll, describe, expect, it } from 'vitest';
import { mongooseOnEngine } from '../support/mongoose-on-engine.js';

/**
 * A mongoose model with a GeoJSON point and a 2dsphere index, as application
 * code writes it: $near with $maxDistance, Aggregate#near ($geoNear) and
 * Query#within ($geoWithin), plus the classic pitfall of a point without
 * coordinates (mongod's 16755).
 */

interface Shop {
  name: string;
  location?: { type: 'Point'; coordinates: number[] };
}

const conn = mongooseOnEngine('mongoose_geo');
let Shop: Model<Shop>;

const at = (lng: number, lat: number) => ({ type: 'Point' as const, coordinates: [lng, lat] as [number, number] });

beforeAll(async () => {
  const schema = new Schema<Shop>({
    name: { type: String, required: true },
    location: { type: { type: String, enum: ['Point'] }, coordinates: [Number] },
  });
  schema.index({ location: '2dsphere' });
  Shop = conn.model<Shop>('Shop', schema);
  await Shop.init();
  await Shop.create([
    { name: 'origin', location: at(0, 0) },
    { name: 'east', location: at(0.01, 0) },
    { name: 'farther', location: at(0.05, 0) },
    { name: 'away', location: at(1, 1) },
  ]);
});

describe('a mongoose model with a 2dsphere-indexed GeoJSON point', () => {
  it('syncs the index as mongod lists it', async () => {
    const indexes = await Shop.listIndexes();
    expect(indexes.find((ix) => ix.name === 'location_2dsphere')).toMatchObject({ key: { location: '2dsphere' }, '2dsphereIndexVersion': 3 });
  });

  it('find with $near and $maxDistance returns the shops within 2 km, nearest first', async () => {
    const found = await Shop.find({ location: { $near: { $geometry: at(0.012, 0), $maxDistance: 2000 } } }).lean();
    expect(found.map((s) => s.name)).toEqual(['east', 'origin']);
  });

  it('Aggregate#near ($geoNear) adds the distance in meters', async () => {
    const rows = await Shop.aggregate<{ name: string; dist: number }>()
      .near({ near: at(0, 0), distanceField: 'dist', spherical: true, maxDistance: 6000, query: { name: { $ne: 'origin' } } })
      .project({ _id: 0, name: 1, dist: 1 });
    expect(rows.map((r) => [r.name, Math.round(r.dist)])).toEqual([
      ['east', 1113],
      ['farther', 5566],
    ]);
  });

  it('Query#within with a GeoJSON polygon ($geoWithin)', async () => {
    const polygon = { type: 'Polygon', coordinates: [[[-0.02, -0.02], [0.02, -0.02], [0.02, 0.02], [-0.02, 0.02], [-0.02, -0.02]]] };
    const found = await Shop.where('location').within(polygon).sort({ name: 1 }).lean();
    expect(found.map((s) => s.name)).toEqual(['east', 'origin']);
  });

  it('Query#within().circle with spherical: true ($centerSphere in radians)', async () => {
    const found = await Shop.where('location').within().circle({ center: [0, 0], radius: 0.001, spherical: true }).sort({ name: 1 }).lean();
    expect(found.map((s) => s.name)).toEqual(['east', 'farther', 'origin']);
  });

  it('a shop without coordinates is refused with 16755 and not stored', async () => {
    // Mongoose fills the coordinates array with [] by default: the object has no valid geometry.
    await expect(Shop.create({ name: 'nowhere', location: { type: 'Point' } })).rejects.toMatchObject({ code: 16755 });
    expect(await Shop.countDocuments({ name: 'nowhere' })).toBe(0);
  });

  it('a legacy-pair $near needs a 2d index: the 2dsphere one does not serve it (291)', async () => {
    await expect(Shop.find({ location: { $near: [0, 0] } }).lean()).rejects.toMatchObject({ code: 291 });
  });

  it('countDocuments with $near is refused as mongod refuses it (5626500); $geoWithin counts', async () => {
    await expect(Shop.countDocuments({ location: { $near: { $geometry: at(0, 0) } } })).rejects.toMatchObject({ code: 5626500 });
    expect(await Shop.countDocuments({ location: { $geoWithin: { $centerSphere: [[0, 0], 0.0002] } } })).toBe(2);
  });
});
