// Preloaded into a service process (NODE_OPTIONS=--import) to put its clock
// CLOCK_SKEW_MS ahead, as on a machine whose clock is off: `new Date()` and
// `Date.now()` read the skewed time; dates built from a value are untouched.
// A proxy, not a subclass: libraries that check a type by name or identity
// (mongoose's schema types, decorator metadata) still see `Date`.
const skewMs = Number(process.env.CLOCK_SKEW_MS ?? 0);
const SystemDate = Date;
const skewedNow = () => SystemDate.now() + skewMs;

globalThis.Date = new Proxy(SystemDate, {
  construct: (target, args, newTarget) => Reflect.construct(target, args.length === 0 ? [skewedNow()] : args, newTarget),
  get: (target, property, receiver) => (property === 'now' ? skewedNow : Reflect.get(target, property, receiver)),
});
