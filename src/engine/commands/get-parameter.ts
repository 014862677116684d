import { mongoError } from '../errors.js';
import { isPlainObject } from '../query/index.js';
import type { Document } from '../query/types.js';
import { mergeLogVerbosity, RUNTIME_SETTABLE, serverParameters } from './server-parameters.js';
import type { CommandHandler } from './types.js';

/** Fields every command may carry that are not parameter names. */
const NON_PARAMETER_FIELDS = new Set(['comment', 'lsid', 'maxTimeMS', 'readConcern', 'writeConcern', 'apiVersion', 'apiStrict', 'apiDeprecationErrors']);

const parameterNames = (body: Document, command: string): string[] =>
  Object.keys(body).filter((k) => k !== command && !NON_PARAMETER_FIELDS.has(k) && !k.startsWith('$'));

export const getParameterCommand: CommandHandler = {
  name: 'getParameter',
  help: "server parameters: {getParameter: 1, name: 1} or {getParameter: '*'}",
  handle(body, ctx) {
    if (ctx.db !== 'admin') throw mongoError('Unauthorized', 'getParameter may only be run against the admin database.');
    const all = serverParameters(ctx.engine);
    const mode = body.getParameter;
    const wantsAll = mode === '*' || (isPlainObject(mode) && Boolean(mode.allParameters));
    const showDetails = isPlainObject(mode) && Boolean(mode.showDetails);
    const names = wantsAll ? Object.keys(all) : parameterNames(body, 'getParameter');
    const reply: Document = {};
    for (const name of names) {
      if (!Object.hasOwn(all, name)) continue;
      const settable = Object.hasOwn(RUNTIME_SETTABLE, name);
      reply[name] = showDetails ? { value: all[name], settableAtRuntime: settable, settableAtStartup: false } : all[name];
    }
    if (Object.keys(reply).length === 0) throw mongoError('InvalidOptions', 'no option found to get');
    return reply;
  },
};

/**
 * setParameter: `{setParameter: 1, <name>: <value>}` for the parameters the
 * engine lets change at runtime (logLevel, logComponentVerbosity, quiet, and
 * the TTL monitor's ttlMonitorSleepSecs and ttlMonitorEnabled); answers the old value as `was`, like mongod.
 */
export const setParameterCommand: CommandHandler = {
  name: 'setParameter',
  help: 'change a server parameter: {setParameter: 1, logLevel: 1} (logLevel, logComponentVerbosity, quiet, ttlMonitorSleepSecs, ttlMonitorEnabled)',
  handle(body, ctx) {
    if (ctx.db !== 'admin') throw mongoError('Unauthorized', 'setParameter may only be run against the admin database.');
    const names = parameterNames(body, 'setParameter');
    if (names.length === 0) throw mongoError('InvalidOptions', 'no option found to set, use help:true to see options');
    if (names.length > 1) throw mongoError('InvalidOptions', 'only one parameter can be set at a time');
    const name = names[0]!;
    const value = body[name];
    const params = serverParameters(ctx.engine);
    const check = RUNTIME_SETTABLE[name];
    if (!check) {
      if (Object.hasOwn(params, name)) throw mongoError('IllegalOperation', `not allowed to change [${name}] at runtime`);
      throw mongoError('InvalidOptions', `attempted to set unrecognized parameter [${name}], use help:true to see options`);
    }
    if (!check(value)) throw mongoError('BadValue', `Invalid value for parameter ${name}: ${JSON.stringify(value)}`);
    const was = params[name];
    params[name] = name === 'logComponentVerbosity' ? mergeLogVerbosity(was as Document, value as Document) : value;
    // logLevel is the default component's verbosity, and the other way round.
    if (name === 'logLevel') params.logComponentVerbosity = { ...(params.logComponentVerbosity as Document), verbosity: value };
    if (name === 'logComponentVerbosity') params.logLevel = (params.logComponentVerbosity as Document).verbosity;
    if (name === 'ttlMonitorSleepSecs') ctx.engine.ttlMonitor?.setSleepSeconds(value as number);
    if (name === 'ttlMonitorEnabled') ctx.engine.ttlMonitor?.setEnabled(value as boolean);
    return { was };
  },
};
