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
    name: 'setParameter ttlMonitorSleepSecs (mongoose\'s TTL test sets it) makes the TTL monitor pass that often',
    indexes: [{ key: { at: 1 }, options: { expireAfterSeconds: 0 } }],
    run: async (c, db) => {
      const admin = db.admin();
      const set = await admin.command({ setParameter: 1, ttlMonitorSleepSecs: 1 });
      try {
        const now = (await admin.command({ getParameter: 1, ttlMonitorSleepSecs: 1 })).ttlMonitorSleepSecs;
        await c.insertOne({ _id: 1, at: new Date(Date.now() - 1000) });
        // The default pass comes once a minute: removed within a few seconds only at the new pace.
        const deadline = Date.now() + 5000;
        while ((await c.countDocuments()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
        return { was: set.was, now, left: await c.countDocuments() };
      } finally {
        await admin.command({ setParameter: 1, ttlMonitorSleepSecs: set.was });
      }
    },
    expected: { was: 60, now: 1, left: 0 },
  },
  {
    name: 'setParameter ttlMonitorEnabled: false stops the TTL monitor until it is true again',
    indexes: [{ key: { at: 1 }, options: { expireAfterSeconds: 0 } }],
    run: async (c, db) => {
      const admin = db.admin();
      await admin.command({ setParameter: 1, ttlMonitorSleepSecs: 1 });
      const disabled = await admin.command({ setParameter: 1, ttlMonitorEnabled: false });
      try {
        await c.insertOne({ _id: 1, at: new Date(Date.now() - 1000) });
        await new Promise((r) => setTimeout(r, 2500));
        const whileOff = await c.countDocuments();
        await admin.command({ setParameter: 1, ttlMonitorEnabled: true });
        const deadline = Date.now() + 5000;
        while ((await c.countDocuments()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
        return { was: disabled.was, whileOff, afterOn: await c.countDocuments() };
      } finally {
        await admin.command({ setParameter: 1, ttlMonitorEnabled: true });
        await admin.command({ setParameter: 1, ttlMonitorSleepSecs: 60 });
      }
    },
    expected: { was: true, whileOff: 1, afterOn: 0 },
  },
  {
    name: 'setParameter ttlMonitorSleepSecs of 0 is BadValue',
    run: (_c, db) => db.admin().command({ setParameter: 1, ttlMonitorSleepSecs: 0 }),
    code: 2,
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
