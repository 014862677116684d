import { describeCompat, type CompatCase } from './compat-cases.js';

/** getParameter/setParameter as drivers, mongoose and mongosh (db.setLogLevel, db.getLogComponents) use them; profile. */
const cases: CompatCase[] = [
  {
    name: 'getParameter names featureCompatibilityVersion',
    run: async (_c, db) => (await db.admin().command({ getParameter: 1, featureCompatibilityVersion: 1 })).featureCompatibilityVersion.version,
    expected: '7.0',
  },
  {
    name: "getParameter '*' lists every parameter",
    run: async (_c, db) => {
      const all = await db.admin().command({ getParameter: '*' });
      return ['featureCompatibilityVersion', 'logLevel', 'logComponentVerbosity', 'cursorTimeoutMillis'].every((name) => name in all);
    },
    expected: true,
  },
  {
    name: 'getParameter of an unknown parameter is InvalidOptions',
    run: (_c, db) => db.admin().command({ getParameter: 1, noSuchParameter: 1 }),
    code: 72,
  },
  {
    name: 'setParameter logLevel answers the old value, and getParameter the new one',
    run: async (_c, db) => {
      const admin = db.admin();
      const set = await admin.command({ setParameter: 1, logLevel: 1 });
      const now = (await admin.command({ getParameter: 1, logLevel: 1 })).logLevel;
      await admin.command({ setParameter: 1, logLevel: set.was });
      return { was: set.was, now };
    },
    expected: { was: 0, now: 1 },
  },
  {
    name: 'setParameter logComponentVerbosity sets one component (db.setLogLevel)',
    run: async (_c, db) => {
      const admin = db.admin();
      await admin.command({ setParameter: 1, logComponentVerbosity: { query: { verbosity: 2 } } });
      const tree = (await admin.command({ getParameter: 1, logComponentVerbosity: 1 })).logComponentVerbosity;
      await admin.command({ setParameter: 1, logComponentVerbosity: { query: { verbosity: -1 } } });
      return { query: tree.query.verbosity, default: tree.verbosity };
    },
    expected: { query: 2, default: 0 },
  },
  {
    name: 'setParameter of an unknown parameter is InvalidOptions',
    run: (_c, db) => db.admin().command({ setParameter: 1, noSuchParameter: 1 }),
    code: 72,
  },
  {
    name: 'setParameter outside admin is Unauthorized',
    run: (_c, db) => db.command({ setParameter: 1, logLevel: 0 }),
    code: 13,
  },
  {
    name: 'getParameter outside admin is Unauthorized',
    run: (_c, db) => db.command({ getParameter: 1, logLevel: 1 }),
    code: 13,
  },
  {
    name: 'setParameter with nothing to set is InvalidOptions',
    run: (_c, db) => db.admin().command({ setParameter: 1 }),
    code: 72,
  },
  {
    name: 'profile -1 reports the profiler settings (db.getProfilingStatus)',
    run: async (_c, db) => {
      const r = await db.command({ profile: -1 });
      return { was: r.was, slowms: r.slowms, sampleRate: r.sampleRate };
    },
    expected: { was: 0, slowms: 100, sampleRate: 1 },
  },
];

describeCompat('parameters', cases);
