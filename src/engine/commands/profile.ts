import { mongoError } from '../errors.js';
import { isNumeric, toDouble } from '../query/values.js';
import type { CommandHandler, EngineState } from './types.js';

/**
 * profile (`db.getProfilingStatus()`, `db.setProfilingLevel()`): the engine
 * has no profiler, so the level stays 0; `slowms` and `sampleRate` are kept
 * and reported, and asking for level 1 or 2 is refused rather than ignored.
 */
const perEngine = new WeakMap<EngineState, { slowms: number; sampleRate: number }>();

export const profileCommand: CommandHandler = {
  name: 'profile',
  help: 'profiler settings: {profile: -1} reads them; {profile: 0, slowms, sampleRate} sets them (levels 1 and 2 are not supported)',
  handle(body, ctx) {
    let settings = perEngine.get(ctx.engine);
    if (!settings) perEngine.set(ctx.engine, (settings = { slowms: 100, sampleRate: 1.0 }));
    const level = isNumeric(body.profile) ? toDouble(body.profile) : Number.NaN;
    if (![-1, 0, 1, 2].includes(level)) throw mongoError('BadValue', 'profile: level must be -1, 0, 1 or 2');
    const was = { was: 0, ...settings };
    if (level === -1) return was;
    if (level > 0) throw mongoError('CommandNotSupported', 'profiling (levels 1 and 2) is not supported by this engine');
    if (body.slowms !== undefined) {
      if (!isNumeric(body.slowms)) throw mongoError('TypeMismatch', "BSON field 'profile.slowms' is the wrong type, expected a number");
      settings.slowms = Math.trunc(toDouble(body.slowms));
    }
    if (body.sampleRate !== undefined) {
      const rate = isNumeric(body.sampleRate) ? toDouble(body.sampleRate) : Number.NaN;
      if (!(rate >= 0 && rate <= 1)) throw mongoError('BadValue', "'sampleRate' must be between 0.0 and 1.0 inclusive");
      settings.sampleRate = rate;
    }
    return was;
  },
};
