/**
 * The engine's value model. Documents are plain objects produced by
 * `BSON.deserialize(bytes, { promoteValues: false })` and then passed through
 * `fromBson` (query/values.ts), so that:
 *   int32                  -> JS number (integral)
 *   double, non-integral   -> JS number
 *   double, integral       -> bson `Double` (so it serializes back as a double)
 *   int64                  -> bson `Long`
 *   decimal128             -> bson `Decimal128`
 *   everything else        -> the bson class / JS value bson gives (ObjectId,
 *                             Date, Binary, BSONRegExp, Timestamp, MinKey, ...)
 * `BSON.serialize` then writes every value back with its original type.
 * All comparison and arithmetic code must accept every numeric form above.
 */
export type Document = { [key: string]: unknown };
