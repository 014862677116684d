import mongoose, { type Model } from 'mongoose';

/**
 * `Model.validate({ [path]: value }, [path])` for one top-level path whose
 * value is already of the path's type: the same validators (required, min,
 * custom...) with the same context, and the same ValidationError when one
 * fails. Model.validate also walks and filters every path of the schema and
 * casts the object first, which on the portions update was about 3% of the
 * write's CPU. No cast here: a value the path would cast differently is the
 * caller's to rule out (the portions are a GraphQL Int).
 * test/shared/path-validator.test.ts holds the two answers equal.
 */
export function pathValidator(model: Model<any>, path: string): (value: unknown) => Promise<void> {
  if (path.includes('.')) throw new Error(`pathValidator takes a top-level path, not ${path}`);
  const schemaType = model.schema.path(path);
  if (!schemaType) throw new Error(`${model.modelName} has no path ${path}`);
  return async (value) => {
    try {
      // Model.validate reads the value with mongoose's get(), which answers undefined for null.
      await schemaType.doValidate(value ?? undefined, { [path]: value }, { path });
    } catch (err) {
      const error = new mongoose.Error.ValidationError();
      error.addError(path, err as mongoose.Error.ValidatorError);
      throw error;
    }
  };
}
