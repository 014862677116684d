import { describe, expect, it } from 'vitest';
import { createShortLivedCache } from '../../src/shared/short-lived-cache.js';

/** A cache on a clock the test moves; `reads` counts the loads that ran. */
function setup(maxAgeMs = 1000) {
  let time = 0;
  const cache = createShortLivedCache<string>({ maxAgeMs, now: () => time });
  let reads = 0;
  const load = (value: string) => () => {
    reads += 1;
    return Promise.resolve(value);
  };
  return { cache, load, reads: () => reads, advance: (ms: number) => (time += ms) };
}

/** A load that resolves or fails when the test says. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('a short-lived cache', () => {
  it('answers the kept value within the period, without reading', async () => {
    const { cache, load, reads, advance } = setup();
    expect(await cache.get('a', load('first'))).toBe('first');
    advance(999);
    expect(await cache.get('a', load('second'))).toBe('first');
    expect(reads()).toBe(1);
  });

  it('reads again once the period since the read started has passed', async () => {
    const { cache, load, advance } = setup();
    await cache.get('a', load('first'));
    advance(1000);
    expect(await cache.get('a', load('second'))).toBe('second');
  });

  it('keeps each key apart', async () => {
    const { cache, load } = setup();
    await cache.get('a', load('for a'));
    expect(await cache.get('b', load('for b'))).toBe('for b');
  });

  it('shares one read among concurrent callers of a key', async () => {
    const { cache, load, reads } = setup();
    const answers = await Promise.all([cache.get('a', load('one')), cache.get('a', load('two')), cache.get('a', load('three'))]);
    expect(answers).toEqual(['one', 'one', 'one']);
    expect(reads()).toBe(1);
  });

  it('does not keep a failed read: the next caller reads again', async () => {
    const { cache, load } = setup();
    await expect(cache.get('a', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.get('a', load('recovered'))).toBe('recovered');
  });

  it('forgets everything on clear()', async () => {
    const { cache, load } = setup();
    await cache.get('a', load('before'));
    cache.clear();
    expect(await cache.get('a', load('after'))).toBe('after');
  });

  it('forgets one key on forget(key), keeping the others', async () => {
    const { cache, load, reads } = setup();
    await cache.get('a', load('a1'));
    await cache.get('b', load('b1'));
    cache.forget('a');
    expect(await cache.get('a', load('a2'))).toBe('a2');
    expect(await cache.get('b', load('b2'))).toBe('b1');
    expect(reads()).toBe(3);
  });

  it('does not let a read started before clear() answer later callers', async () => {
    const { cache, load } = setup();
    const slow = deferred<string>();
    const early = cache.get('a', () => slow.promise);
    cache.clear();
    const late = cache.get('a', load('after the change'));
    slow.resolve('before the change');
    expect(await early).toBe('before the change');
    expect(await late).toBe('after the change');
    expect(await cache.get('a', load('unused'))).toBe('after the change');
  });

  it('a failed read started before clear() does not drop the newer value', async () => {
    const { cache, load } = setup();
    const slow = deferred<string>();
    const early = cache.get('a', () => slow.promise);
    cache.clear();
    await cache.get('a', load('newer'));
    slow.reject(new Error('late failure'));
    await expect(early).rejects.toThrow('late failure');
    expect(await cache.get('a', load('unused'))).toBe('newer');
  });

  it('keeps nothing with a period of 0', async () => {
    const { cache, load } = setup(0);
    await cache.get('a', load('first'));
    expect(await cache.get('a', load('second'))).toBe('second');
  });
});
