import { describe, expect, it } from 'vitest';
import { readOptions, withDatabase } from '../../bench/options.js';

/** The bench's settings and the database it picks on a MONGODB_URI (no processes: pure functions). */
describe('bench options', () => {
  it('defaults to 3 rounds of 10 s at 50 connections, every part, 10k users and keys, 1k menus', () => {
    const options = readOptions([], {});
    expect(options).toMatchObject({ rounds: 3, seconds: 10, warmupSeconds: 5, connections: 50, memorySeconds: 60, memoryWarmupSeconds: 45, users: 10_000, keys: 10_000, menus: 1000 });
    expect([...options.parts]).toEqual(['service', 'memory', 'a', 'b', 'c']);
    expect(options.jsonFile).toBeUndefined();
  });

  it('--quick shortens the run; a flag wins over the environment', () => {
    expect(readOptions(['--quick'], {})).toMatchObject({ rounds: 1, seconds: 3, warmupSeconds: 1, memorySeconds: 10, memoryWarmupSeconds: 5 });
    expect(readOptions(['--rounds', '2', '--json', 'out.json'], { BENCH_ROUNDS: '5', BENCH_DURATION: '4' })).toMatchObject({ rounds: 2, seconds: 4, jsonFile: 'out.json' });
    expect(readOptions(['--memory-warmup', '0'], { BENCH_MEMORY_WARMUP: '30' })).toMatchObject({ memoryWarmupSeconds: 0 });
  });

  it('refuses a bad number, a flag without a value and an unknown part, naming them', () => {
    expect(() => readOptions(['--connections', 'many'], {})).toThrow('--connections (BENCH_CONNECTIONS) must be a number >= 1, got "many"');
    expect(() => readOptions(['--json'], {})).toThrow('--json needs a value');
    expect(() => readOptions(['--only', 'service,f'], {})).toThrow('unknown: f');
  });

  it('puts the bench in its own database of MONGODB_URI, keeping hosts, options and where credentials are checked', () => {
    expect(withDatabase('mongodb://127.0.0.1:27017', 'bench_x')).toBe('mongodb://127.0.0.1:27017/bench_x');
    expect(withDatabase('mongodb://a:1,b:2/?replicaSet=rs', 'bench_x')).toBe('mongodb://a:1,b:2/bench_x?replicaSet=rs');
    expect(withDatabase('mongodb://u:p@h/app?tls=true', 'bench_x')).toBe('mongodb://u:p@h/bench_x?tls=true&authSource=app');
    expect(withDatabase('mongodb://u:p@h/app?authSource=admin', 'bench_x')).toBe('mongodb://u:p@h/bench_x?authSource=admin');
    expect(() => withDatabase('postgres://h/db', 'bench_x')).toThrow('MONGODB_URI must look like');
  });
});
