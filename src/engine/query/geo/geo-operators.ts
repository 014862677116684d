import { mongoError } from '../../errors.js';
import type { FieldOperator, LeafMatcher } from '../filter/filter-types.js';
import { intersectsMatcher, NEAR_OPERATORS, parseIntersects, parseWithin, withinMatcher } from './geo-query.js';

/**
 * Geospatial query operators: $geoWithin (and its old name $within),
 * $geoIntersects, and $near/$nearSphere with their $maxDistance/$minDistance
 * siblings. A near condition is resolved beforehand by the read path
 * (near.ts: index, units, ordering); anywhere else it is refused as mongod
 * refuses it ($match, countDocuments).
 */

const near: FieldOperator = (_operand, ctx) => {
  const plan = ctx.options.near;
  if (!plan) {
    throw mongoError(
      'Location5626500',
      '$geoNear, $near, and $nearSphere are not allowed in this context, as these operators require sorting geospatial data. ' +
        'If you do not need sort, consider using $geoWithin instead.',
    );
  }
  return (leaves) => plan.test(leaves);
};

/** $maxDistance & co. only qualify a near operator beside them (which validates them). */
const nearSibling =
  (name: string): FieldOperator =>
  (_operand, _ctx, siblings): LeafMatcher => {
    if (!Object.keys(siblings).some((k) => NEAR_OPERATORS.has(k))) throw mongoError('BadValue', `unknown operator: ${name}`);
    return () => true;
  };

const geoWithin: FieldOperator = (operand) => withinMatcher(parseWithin(operand));

export const geoOperators: Readonly<Record<string, FieldOperator>> = {
  $geoWithin: geoWithin,
  $within: geoWithin,
  $geoIntersects: (operand) => intersectsMatcher(parseIntersects(operand)),
  $near: near,
  $nearSphere: near,
  $geoNear: near,
  $maxDistance: nearSibling('$maxDistance'),
  $minDistance: nearSibling('$minDistance'),
  $uniqueDocs: nearSibling('$uniqueDocs'),
};
