import { Long } from 'bson';
import { mongoError } from '../errors.js';
import { isPlainObject } from '../query/index.js';
import type { Document } from '../query/types.js';
import { serverFacts } from '../standalone/index.js';
import type { CommandHandler } from './types.js';

/**
 * The server parameters we report, with mongod's defaults where they apply
 * (test runners compare `runOnRequirements.serverParameters` against them).
 */
function parameters(): Document {
  return {
    authenticationMechanisms: [],
    cursorTimeoutMillis: Long.fromNumber(600_000),
    featureCompatibilityVersion: { version: serverFacts.featureCompatibilityVersion },
    logLevel: 0,
    maxBSONDepth: 200,
    quiet: false,
    requireApiVersion: false,
    transactionLifetimeLimitSeconds: 60,
  };
}

/** Fields every command may carry that are not parameter names. */
const NON_PARAMETER_FIELDS = new Set(['getParameter', 'comment', 'lsid', 'maxTimeMS', 'readConcern', 'writeConcern', 'apiVersion', 'apiStrict', 'apiDeprecationErrors']);

export const getParameterCommand: CommandHandler = {
  name: 'getParameter',
  help: "server parameters: {getParameter: 1, name: 1} or {getParameter: '*'}",
  handle(body) {
    const all = parameters();
    const mode = body.getParameter;
    const wantsAll = mode === '*' || (isPlainObject(mode) && Boolean(mode.allParameters));
    const showDetails = isPlainObject(mode) && Boolean(mode.showDetails);
    const names = wantsAll ? Object.keys(all) : Object.keys(body).filter((k) => !NON_PARAMETER_FIELDS.has(k) && !k.startsWith('$'));
    const reply: Document = {};
    for (const name of names) {
      if (!Object.hasOwn(all, name)) continue;
      reply[name] = showDetails ? { value: all[name], settableAtRuntime: false, settableAtStartup: false } : all[name];
    }
    if (Object.keys(reply).length === 0) throw mongoError('InvalidOptions', 'no option found to get');
    return reply;
  },
};
