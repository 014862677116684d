import { TypeRank, typeRank } from './compare.js';
import { bsonType, numericType } from './values.js';

/** BSON type aliases and numbers, as `$type` accepts them. */
export const BSON_TYPE_NUMBERS: Record<string, number> = {
  double: 1,
  string: 2,
  object: 3,
  array: 4,
  binData: 5,
  undefined: 6,
  objectId: 7,
  bool: 8,
  date: 9,
  null: 10,
  regex: 11,
  dbPointer: 12,
  javascript: 13,
  symbol: 14,
  javascriptWithScope: 15,
  int: 16,
  timestamp: 17,
  long: 18,
  decimal: 19,
  minKey: -1,
  maxKey: 127,
};

/** The `$type` alias of a present value (undefined for missing). */
export function bsonTypeName(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const num = numericType(value);
  if (num) return num;
  if (bsonType(value) === 'BSONSymbol') return 'symbol';
  switch (typeRank(value)) {
    case TypeRank.null:
      return 'null';
    case TypeRank.string:
      return 'string';
    case TypeRank.object:
      return 'object';
    case TypeRank.array:
      return 'array';
    case TypeRank.binData:
      return 'binData';
    case TypeRank.objectId:
      return 'objectId';
    case TypeRank.bool:
      return 'bool';
    case TypeRank.date:
      return 'date';
    case TypeRank.timestamp:
      return 'timestamp';
    case TypeRank.regex:
      return 'regex';
    case TypeRank.dbPointer:
      return 'dbPointer';
    case TypeRank.javascript:
      return 'javascript';
    case TypeRank.javascriptWithScope:
      return 'javascriptWithScope';
    case TypeRank.minKey:
      return 'minKey';
    default:
      return 'maxKey';
  }
}
