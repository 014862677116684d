import os from 'node:os';
import { mongoError } from '../errors.js';
import { isNumeric, toDouble } from '../query/values.js';
import { currentOperations, isRunning } from './operation-tracker.js';
import type { CommandHandler } from './types.js';

/** currentOp (the command form of `$currentOp`): `{inprog: [...]}`, on admin. */
export const currentOpCommand: CommandHandler = {
  name: 'currentOp',
  help: 'operations in progress: {currentOp: 1} on admin',
  handle(_body, ctx) {
    if (ctx.db !== 'admin') throw mongoError('Unauthorized', 'currentOp may only be run against the admin database.');
    const inprog = currentOperations(ctx.engine, os.hostname());
    if (!ctx.engine.fsyncLock?.locked) return { inprog };
    return { inprog, fsyncLock: true, info: 'use db.fsyncUnlock() to terminate the fsync write/snapshot lock' };
  },
};

/**
 * killOp: every engine operation runs to its end without yielding, so an
 * operation is never interrupted; mongod answers ok for any opid, and so do we.
 */
export const killOpCommand: CommandHandler = {
  name: 'killOp',
  help: 'kill an operation: {killOp: 1, op: <opid>} (operations here finish without yielding, so this only acknowledges)',
  handle(body, ctx) {
    if (ctx.db !== 'admin') throw mongoError('Unauthorized', 'killOp may only be run against the admin database.');
    if (!isNumeric(body.op)) throw mongoError('BadValue', "Did not provide \"op\" field");
    return { info: isRunning(ctx.engine, toDouble(body.op)) ? 'attempting to kill op' : 'no such op' };
  },
};
