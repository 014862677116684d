import { afterEach, describe, expect, it, vi } from 'vitest';
import { createUseGrants, GRANT_MAX_AGE_MS, type GrantOperations, type UseGrants } from '../../src/api-keys/api-key-grants.js';
import type { ApiKeyCredentialRecord } from '../../src/auth/index.js';

/**
 * The races of grants (review of issue 12's grants), against a small fake of
 * the store's database operations: the orders of replies and give-backs that
 * real HTTP cannot choose. The fake checks the limit as the store does:
 * countOne counts past it (the strategy answers 429), countMany never does.
 */

const SECRET = 'aa'.repeat(32);
const ROLLED = 'bb'.repeat(32);
const WINDOW = new Date(0);

function fakeDatabase(rateLimit: number, count: number) {
  const db = {
    count,
    hashes: [SECRET],
    calls: [] as string[],
    /** While set, give-backs wait for it (a slow database). */
    giveBackGate: null as Promise<void> | null,
    giveBackFails: false,
    /** While set, countMany waits for it. */
    countManyGate: null as Promise<void> | null,
  };
  const key = (): ApiKeyCredentialRecord => ({
    id: '0123456789abcdef01234567',
    keyId: 'k',
    tenantId: null,
    createdBy: 'u',
    scopes: [],
    allowedOrigins: [],
    allowedIPs: [],
    expiresAt: null,
    revokedAt: null,
    rateLimit,
    secrets: db.hashes.map((hash) => ({ hash, validUntil: null })),
  });
  const operations: GrantOperations = {
    async countOne(_keyId, hash) {
      db.calls.push('countOne');
      await null;
      if (!db.hashes.includes(hash)) return null;
      db.count += 1;
      return { key: key(), usedInWindow: db.count };
    },
    async countMany(_keyId, hash, _at, _window, size, limit) {
      db.calls.push(`countMany ${size}`);
      if (db.countManyGate) await db.countManyGate;
      if (!db.hashes.includes(hash) || limit !== rateLimit || db.count > rateLimit - size) return null;
      db.count += size;
      return { key: key(), usedInWindow: db.count };
    },
    async giveBack(_keyId, _window, uses) {
      db.calls.push(`giveBack ${uses}`);
      if (db.giveBackGate) await db.giveBackGate;
      if (db.giveBackFails) throw new Error('database unavailable');
      if (db.count >= uses) db.count -= uses;
    },
  };
  return { db, operations };
}

/** A gate opened by hand. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open = () => {};
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

/** One request as the strategy answers it: counted, then refused by IP/Origin (403), over the limit (429), or served. */
async function request(grants: UseGrants, hash: string, { callerAllowed = true } = {}): Promise<'401' | '403' | '429' | '200'> {
  const counted = await grants.countUse('k', hash, new Date(1000), WINDOW);
  if (!counted) return '401';
  if (!callerAllowed) {
    await grants.releaseUse(counted, WINDOW);
    return '403';
  }
  return counted.usedInWindow > counted.key.rateLimit ? '429' : '200';
}

let open: UseGrants | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await open?.close();
  open = undefined;
});

describe('a use refused by IP or Origin after it was counted', () => {
  it('goes back to the database, not into the live grant, when the database counted it (a secret rolled in elsewhere): the limit holds', async () => {
    const { db, operations } = fakeDatabase(2000, 1996);
    const grants = (open = createUseGrants(operations, { now: () => 1000 }));
    let served = 1996;
    // A grant of 1, then one of 2 (count 1999, one use left here).
    for (let i = 0; i < 2; i += 1) if ((await request(grants, SECRET)) === '200') served += 1;
    db.count += 1; // another instance serves a use: 2000
    served += 1;
    db.hashes.push(ROLLED); // a roll on another instance this instance has not read
    expect(await request(grants, ROLLED, { callerAllowed: false })).toBe('403');
    const after = [await request(grants, SECRET), await request(grants, SECRET), await request(grants, SECRET)];
    served += after.filter((status) => status === '200').length;
    expect(after).toEqual(['200', '429', '429']);
    expect(served).toBe(2000);
  });

  it('counted past the limit by a concurrent first use is not put into the grant the other took', async () => {
    const { db, operations } = fakeDatabase(2000, 1999);
    const grants = (open = createUseGrants(operations, { now: () => 1000 }));
    // Two first uses at once: one counted at 2000 (served), one at 2001 (past the limit, refused by Origin).
    const [first, second] = await Promise.all([grants.countUse('k', SECRET, new Date(1000), WINDOW), grants.countUse('k', SECRET, new Date(1000), WINDOW)]);
    const over = first!.usedInWindow > 2000 ? first! : second!;
    expect(over.usedInWindow).toBe(2001);
    await grants.releaseUse(over, WINDOW);
    expect(db.count).toBe(2000);
    expect(await request(grants, SECRET)).toBe('429');
  });

  it('served from the live grant goes back into it: served again without a database write, counted once', async () => {
    const { db, operations } = fakeDatabase(1_000_000, 0);
    const grants = (open = createUseGrants(operations, { now: () => 1000 }));
    for (let i = 0; i < 3; i += 1) await request(grants, SECRET); // grants of 1 and 2, used up
    expect(await request(grants, SECRET)).toBe('200'); // a grant of 4, three left
    expect(await request(grants, SECRET, { callerAllowed: false })).toBe('403');
    const calls = db.calls.length;
    for (let i = 0; i < 3; i += 1) expect(await request(grants, SECRET)).toBe('200');
    expect(db.calls.slice(calls)).toEqual([]);
    await grants.close();
    expect(db.count).toBe(7);
  });
});

describe('a write to a key (forget) while unused uses are being given back', () => {
  it('the next use waits for the give-back: no 429 while the limit still has room', async () => {
    const { db, operations } = fakeDatabase(100_000, 90_000);
    const grants = (open = createUseGrants(operations, { now: () => 1000 }));
    let served = 90_000;
    for (let i = 0; i < 40; i += 1) if ((await request(grants, SECRET)) === '200') served += 1;
    expect(db.count).toBeGreaterThan(served); // part of a grant unused here
    const others = 100_000 - db.count; // other instances serve up to the count
    db.count += others;
    served += others;
    const slow = gate();
    db.giveBackGate = slow.wait;
    grants.forget(); // a write through the model (another key, even)
    const next = request(grants, SECRET);
    slow.open();
    expect(await next).toBe('200');
    expect(served + 1).toBeLessThanOrEqual(100_000);
  });

  it('a grant taken while the key was written is given back before the next count', async () => {
    const { db, operations } = fakeDatabase(2000, 1990);
    const grants = (open = createUseGrants(operations, { now: () => 1000 }));
    await request(grants, SECRET); // a grant of 1: 1991
    const taking = gate();
    db.countManyGate = taking.wait;
    const pending = request(grants, SECRET); // takes a grant of 2 (1993), one use unused
    grants.forget(); // written meanwhile: the grant is not kept, its unused use given back
    const slow = gate();
    db.giveBackGate = slow.wait;
    taking.open();
    db.countManyGate = null;
    expect(await pending).toBe('200');
    db.count = 2000; // other instances fill the window; one use in it is still being given back: 1999 served
    const next = request(grants, SECRET);
    slow.open();
    expect(await next).toBe('200');
    expect(db.count).toBe(2000);
  });

  it('a write that names one key leaves the grants of others live', async () => {
    const { db, operations } = fakeDatabase(1_000_000, 0);
    const grants = (open = createUseGrants(operations, { now: () => 1000 }));
    for (let i = 0; i < 4; i += 1) await request(grants, SECRET); // a grant of 4, three unused
    const calls = db.calls.length;
    grants.forget([{ keyId: 'other', id: 'ffffffffffffffffffffffff' }]);
    expect(await request(grants, SECRET)).toBe('200');
    expect(db.calls.slice(calls)).toEqual([]);
    grants.forget([{ id: '0123456789abcdef01234567' }]);
    expect(db.calls.slice(calls)).toEqual(['giveBack 2']);
  });
});

describe('unused uses and idle keys', () => {
  it('a use released into a grant of one is given back when the grant ends, with no further use', async () => {
    vi.useFakeTimers();
    const { db, operations } = fakeDatabase(1_000_000, 0);
    const grants = (open = createUseGrants(operations, { now: () => Date.now() }));
    const counted = await grants.countUse('k', SECRET, new Date(), WINDOW); // a grant of 1
    await grants.releaseUse(counted!, WINDOW);
    await vi.advanceTimersByTimeAsync(GRANT_MAX_AGE_MS);
    expect(db.count).toBe(0);
  });

  it('an idle key is forgotten: its next use starts again at a grant of one', async () => {
    vi.useFakeTimers();
    const { db, operations } = fakeDatabase(1_000_000, 0);
    const grants = (open = createUseGrants(operations, { now: () => Date.now() }));
    for (let i = 0; i < 3; i += 1) await grants.countUse('k', SECRET, new Date(), WINDOW); // grants of 1 and 2, the next would be 4
    await vi.advanceTimersByTimeAsync(GRANT_MAX_AGE_MS * 3);
    const calls = db.calls.length;
    await grants.countUse('k', SECRET, new Date(), WINDOW);
    expect(db.calls.slice(calls)).toEqual(['countOne']);
  });
});

describe('a give-back that fails', () => {
  it('is logged as a warning with the key id, and no secret', async () => {
    const { db, operations } = fakeDatabase(1_000_000, 0);
    const warnings: unknown[][] = [];
    const grants = createUseGrants(operations, { now: () => 1000, logger: { warn: (...args: unknown[]) => warnings.push(args) } as never });
    for (let i = 0; i < 4; i += 1) await grants.countUse('k', SECRET, new Date(1000), WINDOW); // a grant of 4, three unused
    db.giveBackFails = true;
    await grants.close();
    expect(warnings).toHaveLength(1);
    expect(warnings[0][0]).toMatchObject({ keyId: 'k', uses: 3 });
    expect(JSON.stringify(warnings)).not.toContain(SECRET);
  });
});
