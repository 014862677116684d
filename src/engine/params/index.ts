/**
 * Reading a command body: typed field readers that fail as mongod's IDL
 * parser does, and the collection/namespace a command targets.
 */
export {
  assertKnownFields,
  commandOptions,
  cursorIdParam,
  letParam,
  missingField,
  nonNegativeInteger,
  optionalArray,
  optionalBool,
  optionalDocument,
  optionalInteger,
  optionalString,
  requiredArray,
  wrongType,
} from './field-readers.js';
export { assertValidCollectionName, collectionParam, cursorCollectionParam, namespaceOf } from './namespace.js';
