import { describe, expect, it } from 'vitest';
import { createDispatcher, type CommandContext, type EngineState } from '../../../src/engine/commands/index.js';

/** A context whose storage fails in an unexpected way (a bug, not a MongoCommandError). */
function brokenContext(): CommandContext {
  const storage = new Proxy({}, { get: () => () => { throw new TypeError('storage exploded'); } });
  const engine = { storage, startedAt: new Date(), version: '7.0.0', connections: () => 1, cursors: { size: 0 } } as unknown as EngineState;
  return { engine, connection: { id: 1, remoteAddress: '127.0.0.1:1' }, db: 'admin' };
}

describe('dispatch', () => {
  it('adds ok: 1 to a successful reply', async () => {
    const dispatch = createDispatcher({ log: () => {} });
    expect(await dispatch({ ping: 1, $db: 'admin' }, brokenContext())).toEqual({ ok: 1 });
  });

  it('answers an unexpected handler error with 1 InternalError and no stack', async () => {
    const dispatch = createDispatcher({ log: () => {} });
    const reply = await dispatch({ serverStatus: 1, $db: 'admin' }, brokenContext());
    expect(reply).toMatchObject({ ok: 0, code: 1, codeName: 'InternalError' });
    expect(String(reply.errmsg)).not.toMatch(/\n\s+at /);
  });

  it('logs an unexpected handler error as one line', async () => {
    const lines: string[] = [];
    const dispatch = createDispatcher({ log: (line) => lines.push(line) });
    await dispatch({ serverStatus: 1, $db: 'admin' }, brokenContext());
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/serverStatus.*storage exploded/);
  });

  it('answers an empty body with CommandNotFound', async () => {
    const dispatch = createDispatcher({ log: () => {} });
    expect(await dispatch({}, brokenContext())).toMatchObject({ ok: 0, code: 59 });
  });
});
