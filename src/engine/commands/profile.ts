import { mongoError } from '../errors.js';
import { isNumeric, isPlainObject, toDouble } from '../query/values.js';
import { profileSettingsOf, setDatabaseProfile } from './profiler.js';
import type { CommandHandler } from './types.js';

/**
 * profile (`db.getProfilingStatus()`, `db.setProfilingLevel()`): `{profile: -1}`
 * reads the settings; 0, 1 or 2 sets the database's level (and `filter`, or
 * `filter: 'unset'`), `slowms` and `sampleRate` are the engine's. The reply
 * holds the settings as they were (`was`: the database's previous level).
 * What the profiler then writes: profiler.ts.
 */
export const profileCommand: CommandHandler = {
  name: 'profile',
  help: 'profiler settings: {profile: -1} reads them; {profile: 0|1|2, slowms, sampleRate, filter} sets them (entries go to <db>.system.profile)',
  handle(body, ctx) {
    const settings = profileSettingsOf(ctx.engine);
    const level = isNumeric(body.profile) ? toDouble(body.profile) : Number.NaN;
    if (![-1, 0, 1, 2].includes(level)) throw mongoError('BadValue', 'profile: level must be -1, 0, 1 or 2');
    const current = settings.databases.get(ctx.db);
    const was = { was: current?.level ?? 0, slowms: settings.slowms, sampleRate: settings.sampleRate, ...(current?.filter ? { filter: current.filter } : {}) };
    if (level === -1) return was;
    let slowms = settings.slowms;
    if (body.slowms !== undefined) {
      if (!isNumeric(body.slowms)) throw mongoError('TypeMismatch', "BSON field 'profile.slowms' is the wrong type, expected a number");
      slowms = Math.trunc(toDouble(body.slowms));
    }
    let sampleRate = settings.sampleRate;
    if (body.sampleRate !== undefined) {
      const rate = isNumeric(body.sampleRate) ? toDouble(body.sampleRate) : Number.NaN;
      if (!(rate >= 0 && rate <= 1)) throw mongoError('BadValue', "'sampleRate' must be between 0.0 and 1.0 inclusive");
      sampleRate = rate;
    }
    let filter = current?.filter;
    if (body.filter === 'unset') filter = undefined;
    else if (body.filter !== undefined) {
      if (!isPlainObject(body.filter)) throw mongoError('BadValue', "Expected 'filter' to be an object, or the string 'unset'");
      filter = body.filter;
    }
    // Checked before anything changes: a filter that does not compile leaves the settings as they were.
    setDatabaseProfile(ctx.engine, ctx.db, level, filter);
    settings.slowms = slowms;
    settings.sampleRate = sampleRate;
    if (filter === undefined) return was;
    return { ...was, note: 'When a filter expression is set, slowms and sampleRate are not used for profiling and slow-query log lines.' };
  },
};
