import { ErrorCodes, isMongoCommandError, mongoError } from '../errors.js';
import { assertCommandDepth } from '../query/index.js';
import type { Document } from '../query/types.js';
import { hasTransactionFields, transactionsRefused } from '../standalone/index.js';
import { assertApiParameters } from './api-parameters.js';
import { writesData } from './fsync-lock.js';
import { beginOperation } from './operation-tracker.js';
import { recordProfile } from './profiler.js';
import { lookupCommand } from './registry.js';
import { noteSession } from './session-cache.js';
import type { CommandContext } from './types.js';

/**
 * Runs one command body and always resolves to the reply body: `ok: 1` is
 * added to a handler's result, a MongoCommandError becomes its `{ok: 0, ...}`
 * form, and anything else is logged and answered as InternalError (code 1)
 * without a stack. Session fields (`lsid`, `$clusterTime`, `$readPreference`,
 * `readConcern`) are accepted and ignored by leaving them to the handlers.
 */
export type Dispatch = (body: Document, ctx: CommandContext) => Promise<Document>;

export interface DispatcherOptions {
  /** Where unexpected handler errors are reported (one line each). */
  log?: (line: string) => void;
}

export function createDispatcher({ log = (line) => process.stderr.write(`${line}\n`) }: DispatcherOptions = {}): Dispatch {
  return async function dispatch(body, ctx) {
    const name = firstKey(body);
    try {
      // mongod validates a command's BSON, its nesting depth included, before reading it.
      assertCommandDepth(body);
      const handler = name === undefined ? undefined : lookupCommand(name);
      if (!handler) throw mongoError('CommandNotFound', `no such command: '${name ?? ''}'`);
      // The session is in use from here on, whatever the command's outcome (as mongod's session cache sees it).
      noteSession(ctx.engine, body.lsid);
      // By the name invoked: isMaster, hello's legacy spelling, is no command of version 1.
      assertApiParameters(body, name!);
      if (hasTransactionFields(body)) throw transactionsRefused();
      // `{<command>: 1, help: true}` (mongosh's db.commandHelp) describes the command instead of running it.
      if (body.help === true) return { help: handler.help, ok: 1 };
      // Read once: undefined unless some database profiles (the whole cost at level 0).
      const profiling = ctx.engine.profiling;
      const started = profiling ? performance.now() : 0;
      const end = beginOperation(handler.name, body, ctx);
      let reply: Document;
      try {
        // db.fsyncLock() holds writes back (they wait, as for mongod's global lock); reads go on.
        if (ctx.engine.fsyncLock?.locked && writesData(handler.name, body)) await ctx.engine.fsyncLock.whenUnlocked(body);
        reply = await handler.handle(body, ctx);
      } catch (err) {
        reply = failureReply(err, name!, log);
      } finally {
        end();
      }
      if (!Object.hasOwn(reply, 'ok')) reply.ok = 1;
      if (profiling) recordProfile(profiling, handler.name, body, ctx, reply, performance.now() - started);
      return reply;
    } catch (err) {
      return failureReply(err, name, log);
    }
  };
}

function failureReply(err: unknown, name: string | undefined, log: (line: string) => void): Document {
  if (isMongoCommandError(err)) return err.toReply();
  log(`engine: command '${name}' failed: ${oneLine(err)}`);
  return {
    ok: 0,
    errmsg: `internal error in command '${name}': ${oneLine(err)}`,
    code: ErrorCodes.InternalError,
    codeName: 'InternalError',
  };
}

function firstKey(body: Document): string | undefined {
  for (const key in body) return key;
  return undefined;
}

function oneLine(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.replace(/\s+/g, ' ').slice(0, 500);
}
