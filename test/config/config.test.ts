import { describe, expect, it } from 'vitest';
import { ConfigError, isLoopback, loadConfig } from '../../src/config.js';

const SECRET = 'x'.repeat(40);

function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('configuration defaults', () => {
  const { config } = loadConfig({ NODE_ENV: 'test' });

  it('listens on 127.0.0.1:4000 (this machine only) outside production', () => {
    expect({ host: config.host, port: config.port }).toEqual({ host: '127.0.0.1', port: 4000 });
  });

  it('listens on 127.0.0.1 in development too', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).config.host).toBe('127.0.0.1');
  });

  it('listens on every interface in production', () => {
    expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET: SECRET }).config.host).toBe('0.0.0.0');
  });

  it('uses the embedded engine on ./data when MONGODB_URI is absent', () => {
    expect({ uri: config.mongodbUri, dir: config.dataDir }).toEqual({ uri: null, dir: './data' });
  });

  it('issues one-hour tokens for the admin-gateway issuer and audience', () => {
    const { issuer, audience, expiresInSeconds } = config.jwt;
    expect({ issuer, audience, expiresInSeconds }).toEqual({ issuer: 'admin-gateway', audience: 'admin-gateway', expiresInSeconds: 3600 });
  });

  it('accepts bodies up to 1 MiB', () => {
    expect(config.bodyLimit.bytes).toBe(1024 * 1024);
  });

  it('allows no cross-origin callers', () => {
    expect(config.corsOrigins).toEqual([]);
  });

  it('creates no administrator', () => {
    expect(config.admin).toBeNull();
  });
});

describe('configuration values', () => {
  it('reads sizes and durations with units', () => {
    const { config } = loadConfig({ NODE_ENV: 'test', BODY_LIMIT: '100kb', JWT_EXPIRES_IN: '15m', PAGE_BYTE_BUDGET: '512kb' });
    expect([config.bodyLimit.bytes, config.jwt.expiresInSeconds, config.pageByteBudget]).toEqual([102400, 900, 524288]);
  });

  it('gives list answers a byte budget of 4 MiB by default', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).config.pageByteBudget).toBe(4 * 1024 * 1024);
  });

  it('splits CORS_ORIGINS on commas', () => {
    const { config } = loadConfig({ NODE_ENV: 'test', CORS_ORIGINS: 'https://a.example, http://b.example:8080' });
    expect(config.corsOrigins).toEqual(['https://a.example', 'http://b.example:8080']);
  });

  it('sets the administrator only when both ADMIN_EMAIL and ADMIN_PASSWORD are given', () => {
    const { config } = loadConfig({ NODE_ENV: 'test', ADMIN_EMAIL: 'root@example.com', ADMIN_PASSWORD: 'Secr3t!pw' });
    expect(config.admin).toEqual({ email: 'root@example.com', password: 'Secr3t!pw' });
  });

  it('is frozen, nested objects included', () => {
    const { config } = loadConfig({ NODE_ENV: 'test' });
    expect(Object.isFrozen(config) && Object.isFrozen(config.jwt) && Object.isFrozen(config.corsOrigins)).toBe(true);
  });
});

describe('invalid configuration', () => {
  it('lists every bad variable at once', () => {
    const problems = problemsOf({
      NODE_ENV: 'staging',
      PORT: 'eighty',
      LOG_LEVEL: 'loud',
      BODY_LIMIT: 'huge',
      PAGE_BYTE_BUDGET: 'plenty',
      JWT_EXPIRES_IN: 'soon',
      CORS_ORIGINS: 'not a url',
      MONGODB_URI: 'postgres://db',
    });
    const named = ['NODE_ENV', 'PORT', 'LOG_LEVEL', 'BODY_LIMIT', 'PAGE_BYTE_BUDGET', 'JWT_EXPIRES_IN', 'CORS_ORIGINS', 'MONGODB_URI'];
    expect(named.filter((name) => !problems.some((problem) => problem.startsWith(name)))).toEqual([]);
  });

  it('puts the whole list in the error message', () => {
    expect(() => loadConfig({ PORT: '-1', LOG_LEVEL: 'loud' })).toThrow(/PORT[\s\S]*LOG_LEVEL/);
  });

  it('refuses production without JWT_SECRET', () => {
    expect(problemsOf({ NODE_ENV: 'production' })).toEqual(['JWT_SECRET is required in production']);
  });

  it('refuses a JWT_SECRET shorter than 32 characters', () => {
    expect(problemsOf({ NODE_ENV: 'production', JWT_SECRET: 'short' })).toEqual([
      'JWT_SECRET must be at least 32 characters long',
    ]);
  });

  it('accepts production with a long enough JWT_SECRET', () => {
    expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET: SECRET }).config.jwt.secret).toBe(SECRET);
  });

  it('refuses ADMIN_EMAIL without ADMIN_PASSWORD', () => {
    expect(problemsOf({ ADMIN_EMAIL: 'root@example.com' })).toEqual(['ADMIN_PASSWORD is required when ADMIN_EMAIL is set']);
  });

  it.each([
    ['too short', 'Ab1!'],
    ['without an uppercase letter', 'secr3t!pw'],
    ['without a digit or non-word character', 'SecretPw'],
  ])('refuses an ADMIN_PASSWORD %s, stating the password rule', (_name, password) => {
    expect(problemsOf({ ADMIN_EMAIL: 'root@example.com', ADMIN_PASSWORD: password })).toEqual([
      'ADMIN_PASSWORD must be 6 to 50 characters long and contain an uppercase letter, a lowercase letter, and a digit or a non-word character',
    ]);
  });

  it('refuses an ADMIN_EMAIL that login would refuse', () => {
    expect(problemsOf({ ADMIN_EMAIL: 'root@example..com', ADMIN_PASSWORD: 'Secr3t!pw' })).toEqual(['ADMIN_EMAIL must be an email address']);
  });

  it('lists a bad ADMIN_PASSWORD with the other bad variables', () => {
    const problems = problemsOf({ PORT: 'eighty', ADMIN_EMAIL: 'root@example.com', ADMIN_PASSWORD: 'weak' });
    expect(problems.map((problem) => problem.split(' ')[0])).toEqual(['PORT', 'ADMIN_PASSWORD']);
  });

  it('refuses a PORT above 65535', () => {
    expect(problemsOf({ PORT: '70000' })).toHaveLength(1);
  });
});

describe('JWT secret outside production', () => {
  it('makes an ephemeral secret in development and warns about it', () => {
    const { config, warnings } = loadConfig({ NODE_ENV: 'development' });
    expect({ generated: config.jwt.secretGenerated, long: config.jwt.secret.length >= 32, warned: warnings.some((w) => w.includes('JWT_SECRET')) }).toEqual({
      generated: true,
      long: true,
      warned: true,
    });
  });

  it('makes a different secret on each start', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).config.jwt.secret).not.toBe(loadConfig({ NODE_ENV: 'development' }).config.jwt.secret);
  });

  it('uses the given secret without warning', () => {
    const { config, warnings } = loadConfig({ NODE_ENV: 'development', JWT_SECRET: SECRET });
    expect({ secret: config.jwt.secret, warnings }).toEqual({ secret: SECRET, warnings: [] });
  });
});

describe('API key settings', () => {
  const base = { JWT_SECRET: SECRET };

  it('keep usage logs 30 days and trust no proxy by default', () => {
    const { config } = loadConfig(base);
    expect([config.apiKeys.usageLogRetentionSeconds, config.trustProxy]).toEqual([30 * 86400, false]);
  });

  it.each([
    ['true', true],
    ['false', false],
    ['2', 2],
    ['loopback', 'loopback'],
    ['loopback, 10.0.0.0/8, ::1', 'loopback,10.0.0.0/8,::1'],
  ])('read TRUST_PROXY=%s as %s', (text, expected) => {
    expect(loadConfig({ ...base, TRUST_PROXY: text }).config.trustProxy).toEqual(expected);
  });

  it('read USAGE_LOG_RETENTION with units', () => {
    expect(loadConfig({ ...base, USAGE_LOG_RETENTION: '12h' }).config.apiKeys.usageLogRetentionSeconds).toBe(43_200);
  });

  it('refuse an unreadable TRUST_PROXY or USAGE_LOG_RETENTION, listing both', () => {
    const problems = problemsOf({ ...base, TRUST_PROXY: 'my-proxy.example', USAGE_LOG_RETENTION: 'forever' });
    expect(problems.map((problem) => problem.split(' ')[0]).sort()).toEqual(['TRUST_PROXY', 'USAGE_LOG_RETENTION']);
  });
});

describe('access token lifetime', () => {
  it.each([
    ['24h', 86400],
    ['86400', 86400],
    ['1d', 86400],
    ['15m', 900],
  ])('accepts %s, up to a day', (text, seconds) => {
    expect(loadConfig({ NODE_ENV: 'test', JWT_EXPIRES_IN: text }).config.jwt.expiresInSeconds).toBe(seconds);
  });

  it.each(['25h', '86401', '7d', '365d'])('refuses %s, over a day, saying the limit and why', (text) => {
    expect(problemsOf({ NODE_ENV: 'test', JWT_EXPIRES_IN: text })).toEqual([
      `JWT_EXPIRES_IN must be at most 24h (86400 seconds): a stolen access token works until it expires or its user's password changes (got "${text}")`,
    ]);
  });
});

describe('listening beyond this machine', () => {
  it.each(['development', 'test'])('is refused in %s, saying to set NODE_ENV=production', (nodeEnv) => {
    expect(problemsOf({ NODE_ENV: nodeEnv, HOST: '0.0.0.0' })).toEqual([
      `HOST=0.0.0.0 would open a ${nodeEnv} server (introspection, error details, a random JWT secret) to other machines: ` +
        'set NODE_ENV=production (which requires JWT_SECRET) to listen beyond this machine, or HOST to a loopback address (127.0.0.1, ::1, localhost)',
    ]);
  });

  it('is refused without NODE_ENV (development), with a JWT_SECRET too', () => {
    expect(problemsOf({ HOST: '0.0.0.0', JWT_SECRET: SECRET })).toEqual([expect.stringContaining('set NODE_ENV=production')]);
  });

  it.each(['::', '192.168.1.20', '10.0.0.1', 'example.com', '::ffff:10.0.0.1', '128.0.0.1'])('refuses HOST=%s outside production', (host) => {
    expect(problemsOf({ NODE_ENV: 'development', HOST: host })).toEqual([expect.stringContaining(`HOST=${host} would open`)]);
  });

  it.each(['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', 'LOCALHOST', '::ffff:127.0.0.1', '0:0:0:0:0:0:0:1'])(
    'accepts the loopback HOST=%s outside production',
    (host) => {
      expect(loadConfig({ NODE_ENV: 'development', HOST: host }).config.host).toBe(host);
    },
  );

  it('is allowed in production, which requires JWT_SECRET', () => {
    expect([
      loadConfig({ NODE_ENV: 'production', JWT_SECRET: SECRET, HOST: '0.0.0.0' }).config.host,
      problemsOf({ NODE_ENV: 'production', HOST: '0.0.0.0' }),
    ]).toEqual(['0.0.0.0', ['JWT_SECRET is required in production']]);
  });

  it('tells loopback addresses from others', () => {
    expect(['127.0.0.1', '::1', 'localhost', '0.0.0.0', '::', '1.2.3.4'].map(isLoopback)).toEqual([true, true, true, false, false, false]);
  });
});

describe('password hashing bound', () => {
  const base = { JWT_SECRET: SECRET };

  it('runs 2 at once with 32 waiting by default, and reads PASSWORD_HASH_CONCURRENCY and PASSWORD_HASH_QUEUE', () => {
    expect(loadConfig(base).config.passwordWork).toEqual({ concurrency: 2, queue: 32, retryAfterSeconds: 1 });
    expect(loadConfig({ ...base, PASSWORD_HASH_CONCURRENCY: '4', PASSWORD_HASH_QUEUE: '0' }).config.passwordWork).toEqual({ concurrency: 4, queue: 0, retryAfterSeconds: 1 });
  });

  it('refuses no concurrency, negative or unreadable values, listing each', () => {
    const problems = problemsOf({ ...base, PASSWORD_HASH_CONCURRENCY: '0', PASSWORD_HASH_QUEUE: 'many' });
    expect(problems.map((problem) => problem.split(' ')[0]).sort()).toEqual(['PASSWORD_HASH_CONCURRENCY', 'PASSWORD_HASH_QUEUE']);
  });
});

describe('sign-in throttling', () => {
  const base = { JWT_SECRET: SECRET };

  it('allows 5 failures per email and 20 per address in a 15-minute window by default', () => {
    expect(loadConfig(base).config.loginThrottle).toEqual({ accountFailures: 5, ipFailures: 20, windowSeconds: 900 });
  });

  it('reads LOGIN_ACCOUNT_FAILURES, LOGIN_IP_FAILURES and LOGIN_FAILURE_WINDOW', () => {
    const { config } = loadConfig({ ...base, LOGIN_ACCOUNT_FAILURES: '3', LOGIN_IP_FAILURES: '50', LOGIN_FAILURE_WINDOW: '1h' });
    expect(config.loginThrottle).toEqual({ accountFailures: 3, ipFailures: 50, windowSeconds: 3600 });
  });

  it('refuses zero, negative or unreadable values, listing each', () => {
    const problems = problemsOf({ ...base, LOGIN_ACCOUNT_FAILURES: '0', LOGIN_IP_FAILURES: '-1', LOGIN_FAILURE_WINDOW: 'a while' });
    expect(problems.map((problem) => problem.split(' ')[0]).sort()).toEqual(['LOGIN_ACCOUNT_FAILURES', 'LOGIN_FAILURE_WINDOW', 'LOGIN_IP_FAILURES']);
  });
});

describe('HTTP limits', () => {
  const base = { JWT_SECRET: SECRET };

  it('gives a whole request 60 s by default, REQUEST_TIMEOUT otherwise', () => {
    expect(loadConfig(base).config.http.requestTimeoutSeconds).toBe(60);
    expect(loadConfig({ ...base, REQUEST_TIMEOUT: '2m' }).config.http.requestTimeoutSeconds).toBe(120);
  });

  it('refuses a zero or unreadable REQUEST_TIMEOUT', () => {
    expect(problemsOf({ ...base, REQUEST_TIMEOUT: '0' })).toEqual([expect.stringMatching(/^REQUEST_TIMEOUT must be a positive duration/)]);
    expect(problemsOf({ ...base, REQUEST_TIMEOUT: 'soon' })).toEqual([expect.stringMatching(/^REQUEST_TIMEOUT must be a positive duration/)]);
  });
});

describe('connection caps', () => {
  const base = { JWT_SECRET: SECRET };

  it('derives the total from the open-file limit and allows 256 per IP by default', () => {
    expect(loadConfig(base).config.http).toMatchObject({ maxConnections: null, maxConnectionsPerIp: 256 });
    expect(loadConfig({ ...base, MAX_CONNECTIONS: '5000', MAX_CONNECTIONS_PER_IP: '0' }).config.http).toMatchObject({ maxConnections: 5000, maxConnectionsPerIp: 0 });
  });

  it('refuses a zero or unreadable MAX_CONNECTIONS and an unreadable MAX_CONNECTIONS_PER_IP, naming each', () => {
    const problems = problemsOf({ ...base, MAX_CONNECTIONS: '0', MAX_CONNECTIONS_PER_IP: 'many' });
    expect(problems.map((problem) => problem.split(' ')[0]).sort()).toEqual(['MAX_CONNECTIONS', 'MAX_CONNECTIONS_PER_IP']);
  });
});

describe('tracing', () => {
  const base = { JWT_SECRET: SECRET };

  it('is off unless an OTLP endpoint is set', () => {
    expect(loadConfig(base).config.tracing).toEqual({ endpoint: null, serviceName: 'admin-gateway', sampler: { name: 'parentbased_always_on', ratio: 1 } });
  });

  it('sends to /v1/traces under OTEL_EXPORTER_OTLP_ENDPOINT, or to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given', () => {
    expect(loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).config.tracing.endpoint).toBe('http://collector:4318/v1/traces');
    expect(loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/in' }).config.tracing.endpoint).toBe('https://traces.example/in');
  });

  it('stays off under OTEL_SDK_DISABLED=true, and reads the service name and sampler', () => {
    expect(loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).config.tracing.endpoint).toBeNull();
    const { tracing } = loadConfig({ ...base, OTEL_SERVICE_NAME: 'gw-eu', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' }).config;
    expect(tracing).toMatchObject({ serviceName: 'gw-eu', sampler: { name: 'parentbased_traceidratio', ratio: 0.25 } });
  });

  it('refuses an endpoint that is not an http(s) URL without quoting it, an unknown sampler and a ratio outside 0 to 1', () => {
    const problems = problemsOf({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://user:s3cret@collector', OTEL_TRACES_SAMPLER: 'sometimes', OTEL_TRACES_SAMPLER_ARG: '1.5' });
    expect(problems.map((problem) => problem.split(' ')[0])).toEqual(['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_TRACES_SAMPLER', 'OTEL_TRACES_SAMPLER_ARG']);
    expect(problems.join('\n')).not.toContain('s3cret');
  });
});

describe('METRICS_TOKEN', () => {
  const base = { JWT_SECRET: SECRET };

  it('is none by default; production says that /metrics is off', () => {
    expect(loadConfig(base).config.metrics.token).toBeNull();
    const { warnings } = loadConfig({ ...base, NODE_ENV: 'production' });
    expect(warnings).toContain('METRICS_TOKEN is not set: GET /metrics is off (404) in production');
    expect(loadConfig({ ...base, NODE_ENV: 'production', METRICS_TOKEN: 'm'.repeat(32) }).warnings).toEqual([]);
  });

  it('refuses a token shorter than 32 characters, without echoing it', () => {
    const problems = problemsOf({ ...base, METRICS_TOKEN: 'short-token' });
    expect(problems).toEqual(['METRICS_TOKEN must be at least 32 characters long']);
  });

  it('keeps a long enough token as given (trimmed)', () => {
    expect(loadConfig({ ...base, METRICS_TOKEN: ` ${'t'.repeat(40)} ` }).config.metrics.token).toBe('t'.repeat(40));
  });
});
