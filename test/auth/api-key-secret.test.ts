import { describe, expect, it } from 'vitest';
import { generateApiKeySecret, hashApiKeySecret, parseApiKeySecret, sameHash } from '../../src/auth/api-key-secret.js';

/** The API key secret: prefix, public key id, 256 random bits, checksum; only its SHA-256 is kept. */

describe('an API key secret', () => {
  it('has the shape ak_<12-char keyId>_<43 random chars><6-char checksum>, all base62', () => {
    expect(generateApiKeySecret().secret).toMatch(/^ak_[0-9A-Za-z]{12}_[0-9A-Za-z]{49}$/);
  });

  it('parses back to its key id and the SHA-256 of the whole secret', () => {
    const made = generateApiKeySecret();
    expect(parseApiKeySecret(made.secret)).toEqual({ keyId: made.keyId, hash: hashApiKeySecret(made.secret) });
    expect(made.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('keeps a given key id (rolling a key keeps its public part)', () => {
    const first = generateApiKeySecret();
    const rolled = generateApiKeySecret(first.keyId);
    expect([rolled.keyId, rolled.secret === first.secret]).toEqual([first.keyId, false]);
  });

  it('is refused when one character is mistyped (checksum), without any lookup', () => {
    const { secret } = generateApiKeySecret();
    const position = 20;
    const typo = secret.slice(0, position) + (secret[position] === 'a' ? 'b' : 'a') + secret.slice(position + 1);
    expect(parseApiKeySecret(typo)).toBeNull();
  });

  it('is refused when truncated, extended or of another shape', () => {
    const { secret } = generateApiKeySecret();
    expect([parseApiKeySecret(secret.slice(0, -1)), parseApiKeySecret(`${secret}0`), parseApiKeySecret('ak_short'), parseApiKeySecret('')]).toEqual([null, null, null, null]);
  });

  it('draws its characters uniformly: 2,000 secrets use all 62 characters with no visible skew', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 2000; i += 1) {
      const random = generateApiKeySecret().secret.slice(16, 59);
      for (const char of random) counts.set(char, (counts.get(char) ?? 0) + 1);
    }
    const expected = (2000 * 43) / 62;
    expect(counts.size).toBe(62);
    for (const count of counts.values()) expect(Math.abs(count - expected) / expected).toBeLessThan(0.15);
  });

  it('never repeats in 10,000 draws', () => {
    const seen = new Set(Array.from({ length: 10_000 }, () => generateApiKeySecret().secret));
    expect(seen.size).toBe(10_000);
  });
});

describe('comparing hashes', () => {
  it('is true only for the same hash', () => {
    const a = hashApiKeySecret('a');
    expect([sameHash(a, a), sameHash(a, hashApiKeySecret('b')), sameHash(a, ''), sameHash('', '')]).toEqual([true, false, false, false]);
  });
});
