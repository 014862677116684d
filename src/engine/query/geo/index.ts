/** Geospatial queries and indexes (2d, 2dsphere, $near, $geoWithin, $geoIntersects, $geoNear). */
export { normalizeGeoIndexSpec, geoKeyCheck, isGeoKeyField } from './geo-index.js';
export { planNear, parseNearQuery, orderByDistance, hasNearCondition } from './near.js';
export type { NearPlan, GeoIndexLike } from './near.js';
export { planGeoNearStage } from './geo-near-stage.js';
