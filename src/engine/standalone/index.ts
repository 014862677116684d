/**
 * What the engine presents itself as: a standalone mongod 7.0 (version, wire
 * limits, storage engine name) which, like any standalone, refuses
 * transaction numbers.
 */
export { serverFacts, storageEngineName } from './server-facts.js';
export { hasTransactionFields, transactionsRefused } from './transactions.js';
