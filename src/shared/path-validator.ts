import mongoose, { type Model } from 'mongoose';

/**
 * `Model.validate(record)` for a plain record whose values are already of
 * their paths' types: the same validators (required, enum, min, custom...)
 * with the same context (the record), and the same ValidationError, its
 * paths in the same order, when some fail. Model.validate also walks and
 * filters every path of the schema, resolves each array element's path and
 * casts a copy of the record first: on every write that was most of the cost
 * of checking its audit record (about 4% of the write's CPU). Here the
 * schema is walked once. No cast: a value the path would cast differently
 * (a number for a string, a date as text) is the caller's to rule out, and
 * the record is stored as given. Schemas with sub-documents or arrays of
 * arrays are refused when the validator is made (Model.validate casts and
 * walks those itself). test/shared/path-validator.test.ts holds the two
 * answers equal.
 */
export function recordValidator(model: Model<any>, paths: readonly string[] = Object.keys(model.schema.paths)): (record: object) => Promise<void> {
  const checks = paths.map((path) => checkOf(model, path)).filter((check) => check.validates || check.element);
  return async (record) => {
    let error: mongoose.Error.ValidationError | null = null;
    const failed = (path: string) => (err: unknown) => {
      (error ??= new mongoose.Error.ValidationError()).addError(path, err as mongoose.Error.ValidatorError);
    };
    const pending: Promise<void>[] = [];
    const validate = (type: PathType, synchronous: boolean, value: unknown, path: string): void => {
      if (!synchronous) {
        pending.push(type.doValidate(value, record, { path }).catch(failed(path)));
        return;
      }
      const refused = type.doValidateSync(value, record, { path });
      // Added as doValidate's refusal would be (a microtask queued now), so the paths keep their order.
      if (refused) pending.push(Promise.reject(refused).catch(failed(path)));
    };
    for (const { path, pieces, type, validates, synchronous } of checks) {
      if (validates) validate(type, synchronous, valueAt(record, pieces), path);
    }
    // Model.validate checks the elements of each array after every schema path, as `<path>.<index>`.
    for (const { path, pieces, element, elementSynchronous } of checks) {
      const values = element ? valueAt(record, pieces) : undefined;
      if (!element || !Array.isArray(values)) continue;
      values.forEach((value, index) => validate(element, elementSynchronous, value ?? undefined, `${path}.${index}`));
    }
    if (pending.length > 0) await Promise.all(pending);
    if (error) throw error;
  };
}

/**
 * The same for one top-level path and its value alone (the context is
 * `{ [path]: value }`, as `Model.validate({ [path]: value }, [path])` has it).
 */
export function pathValidator(model: Model<any>, path: string): (value: unknown) => Promise<void> {
  if (path.includes('.')) throw new Error(`pathValidator takes a top-level path, not ${path}`);
  const check = recordValidator(model, [path]);
  return (value) => check({ [path]: value });
}

/** What SchemaType offers that its typings leave out. */
interface PathType {
  validators: unknown[];
  originalRequiredValue?: unknown;
  requiredValidator?: unknown;
  enumValidator?: unknown;
  minValidator?: unknown;
  maxValidator?: unknown;
  minlengthValidator?: unknown;
  maxlengthValidator?: unknown;
  $isSingleNested?: boolean;
  $isMongooseDocumentArray?: boolean;
  $isMongooseArray?: boolean;
  embeddedSchemaType?: PathType;
  doValidate(value: unknown, scope: object, options: { path: string }): Promise<void>;
  /** The same validators run synchronously; skips those that are async (so only for `synchronous` paths). */
  doValidateSync(value: unknown, scope: object, options: { path: string }): mongoose.Error.ValidatorError | null;
}

interface Check {
  path: string;
  pieces: readonly string[];
  type: PathType;
  /** Whether the path has validators of its own (doValidate skips every other kind). */
  validates: boolean;
  /** An array's element type, when it has validators. */
  element: PathType | null;
  /** Whether doValidateSync answers for the path (and its elements) exactly as doValidate: see `synchronousOnly`. */
  synchronous: boolean;
  elementSynchronous: boolean;
}

const hasValidators = (type: PathType) => type.validators.some((v) => typeof v === 'object' && v !== null);

/** Where a SchemaType keeps the validator functions it makes itself (schemaType.js, schema/*.js): none returns a promise. */
const OWN_VALIDATORS = ['requiredValidator', 'enumValidator', 'minValidator', 'maxValidator', 'minlengthValidator', 'maxlengthValidator'] as const;

/**
 * Whether every validator of the path is one mongoose made itself (known by
 * the function, not by its `type`, which a schema may set on its own), with
 * a text message, no error class of its own and no required-function
 * (which could throw): doValidateSync then refuses exactly what doValidate
 * refuses, with the same error, without the promises doValidate makes for
 * each path (run on every audit record, they were about 8% of a write's
 * service CPU). Any other validator may return a promise, which
 * doValidateSync skips: such a path keeps doValidate (as does `match`,
 * whose function mongoose does not keep).
 */
function synchronousOnly(type: PathType): boolean {
  const own = new Set<unknown>(OWN_VALIDATORS.map((name) => type[name]).filter((fn) => typeof fn === 'function'));
  return type.validators.every((v) => {
    if (typeof v !== 'object' || v === null) return true;
    const { validator, message, ErrorConstructor } = v as { validator?: unknown; message?: unknown; ErrorConstructor?: unknown };
    if (!own.has(validator) || ErrorConstructor !== undefined) return false;
    if (message !== undefined && typeof message !== 'string') return false;
    return validator !== type.requiredValidator || typeof type.originalRequiredValue !== 'function';
  });
}

function checkOf(model: Model<any>, path: string): Check {
  const type = model.schema.path(path) as PathType | undefined;
  if (!type) throw new Error(`${model.modelName} has no path ${path}`);
  if (type.$isSingleNested || type.$isMongooseDocumentArray || type.embeddedSchemaType?.$isMongooseArray) {
    throw new Error(`${model.modelName}.${path} holds sub-documents or arrays of arrays: use Model.validate`);
  }
  const element = type.$isMongooseArray && type.embeddedSchemaType && hasValidators(type.embeddedSchemaType) ? type.embeddedSchemaType : null;
  return { path, pieces: path.split('.'), type, validates: hasValidators(type), element, synchronous: synchronousOnly(type), elementSynchronous: element !== null && synchronousOnly(element) };
}

/** The value at a path as Model.validate reads it (mongoose's get()): null and a missing parent answer undefined. */
function valueAt(record: object, pieces: readonly string[]): unknown {
  let value: unknown = record;
  for (const piece of pieces) {
    if (value == null) return undefined;
    value = (value as Record<string, unknown>)[piece];
  }
  return value ?? undefined;
}
