import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

/** SESSION_TTL: how long a sign-in session lives unused (default 30 days, at most 365). */

function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('SESSION_TTL', () => {
  it('defaults to 30 days', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).config.sessions.ttlSeconds).toBe(30 * 86400);
  });

  it.each([
    ['3600', 3600],
    ['12h', 12 * 3600],
    ['7d', 7 * 86400],
    ['365d', 365 * 86400],
  ])('reads %s as %i seconds', (text, seconds) => {
    expect(loadConfig({ NODE_ENV: 'test', SESSION_TTL: text }).config.sessions.ttlSeconds).toBe(seconds);
  });

  it.each(['soon', '0', '-1d', '1w'])('refuses %s, naming the variable and the form it takes', (text) => {
    expect(problemsOf({ NODE_ENV: 'test', SESSION_TTL: text })).toEqual([`SESSION_TTL must be a positive duration like 3600, 12h, 30d (got "${text}")`]);
  });

  it('refuses more than a year', () => {
    expect(problemsOf({ NODE_ENV: 'test', SESSION_TTL: '366d' })).toEqual([
      'SESSION_TTL must be at most 365d (31536000 seconds): a refresh token carries its session on until then (got "366d")',
    ]);
  });
});
