import { Long } from 'bson';
import type { Document } from '../query/types.js';
import { serverFacts } from '../standalone/index.js';
import type { EngineState } from './types.js';

/**
 * The server parameters getParameter reports, with mongod's defaults where
 * they apply (test runners compare `runOnRequirements.serverParameters`
 * against them). The log levels setParameter may change are only reported (the
 * engine keeps no verbose log); the TTL monitor's two steer its sweeper.
 */

/** mongod 7.0's log components; -1 means "inherit the default verbosity". */
const LOG_COMPONENTS = [
  'accessControl', 'assert', 'command', 'control', 'executor', 'geo', 'globalIndex', 'index', 'network', 'processHealth',
  'query', 'queryStats', 'replication', 'sharding', 'storage', 'write', 'ftdc', 'tracking', 'transaction', 'tenantMigration',
];

function defaults(engine: EngineState): Document {
  const logComponentVerbosity: Document = { verbosity: 0 };
  for (const component of LOG_COMPONENTS) logComponentVerbosity[component] = { verbosity: -1 };
  return {
    authenticationMechanisms: [],
    cursorTimeoutMillis: Long.fromNumber(600_000),
    featureCompatibilityVersion: { version: serverFacts.featureCompatibilityVersion },
    logComponentVerbosity,
    logLevel: 0,
    maxBSONDepth: 200,
    quiet: false,
    requireApiVersion: false,
    transactionLifetimeLimitSeconds: 60,
    ttlMonitorEnabled: true,
    ttlMonitorSleepSecs: engine.ttlMonitor?.sleepSeconds() ?? 60,
  };
}

/** Parameters setParameter accepts at runtime, and how each value is checked. */
export const RUNTIME_SETTABLE: Readonly<Record<string, (value: unknown) => boolean>> = {
  logLevel: (v) => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 5,
  logComponentVerbosity: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  quiet: (v) => typeof v === 'boolean',
  ttlMonitorEnabled: (v) => typeof v === 'boolean',
  ttlMonitorSleepSecs: (v) => typeof v === 'number' && Number.isInteger(v) && v >= 1,
};

const perEngine = new WeakMap<EngineState, Document>();

/** The engine's current parameters (a live object: setParameter writes into it). */
export function serverParameters(engine: EngineState): Document {
  let params = perEngine.get(engine);
  if (!params) perEngine.set(engine, (params = defaults(engine)));
  return params;
}

/** Merges `{component: {verbosity}}` settings into the current tree, as mongod does. */
export function mergeLogVerbosity(current: Document, change: Document): Document {
  const out: Document = { ...current };
  for (const [key, value] of Object.entries(change)) {
    if (key === 'verbosity') out.verbosity = value;
    else if (typeof value === 'number') out[key] = { ...(out[key] as Document | undefined), verbosity: value };
    else if (typeof value === 'object' && value !== null) out[key] = mergeLogVerbosity((out[key] as Document | undefined) ?? { verbosity: -1 }, value as Document);
  }
  return out;
}
