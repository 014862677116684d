import { IsMongoId, IsOptional, ValidateBy } from 'class-validator';
import { Types } from 'mongoose';
import { ArgsType, Field, ID } from 'type-graphql';

/**
 * Record ids are the `_id` ObjectIds rendered as 24 hexadecimal characters.
 * Declaring an id argument with `@ObjectIdField()` makes a malformed id a
 * class-validator failure (rule `isMongoId`), which the validation layer turns
 * into 400 BAD_USER_INPUT naming the field, on both surfaces, before any
 * service runs. Services may then call `toObjectId` without re-checking.
 * A well-formed id arrives in lowercase (see `IsObjectId`), so services
 * compare ids as strings.
 */
export interface ObjectIdFieldOptions {
  nullable?: boolean;
  description?: string;
}

export function ObjectIdField(options: ObjectIdFieldOptions = {}): PropertyDecorator {
  const { nullable = false, description = 'A record id: 24 hexadecimal characters.' } = options;
  return (target, propertyKey) => {
    Field(() => ID, { nullable, description })(target, propertyKey);
    if (nullable) IsOptional()(target, propertyKey);
    IsObjectId()(target, propertyKey);
  };
}

/**
 * The rule of an id field (`isMongoId`, 24 hexadecimal characters), for
 * `@ObjectIdField()` and for fields declared as String that hold an id
 * (createdBy, updatedBy). Letter case does not name another record, and
 * services compare ids as strings (`id === actor.userId`): so the arguments
 * the resolver gets hold the id in lowercase. type-graphql validates the very
 * instance it hands the resolver, which makes this rule the one place that
 * sees every id argument, on both surfaces.
 */
export function IsObjectId(): PropertyDecorator {
  const lowercase = ValidateBy({
    name: 'lowercaseObjectId',
    validator: {
      validate(value, args) {
        if (typeof value === 'string' && args) (args.object as Record<string, unknown>)[args.property] = value.toLowerCase();
        return true;
      },
    },
  });
  const wellFormed = IsMongoId({ message: '$property must be a 24-character hexadecimal id' });
  return (target, propertyKey) => {
    wellFormed(target, propertyKey);
    lowercase(target, propertyKey);
  };
}

/** Arguments of an operation that addresses one record by id. */
@ArgsType()
export class IdArgs {
  @ObjectIdField()
  id!: string;
}

/**
 * Whether a string is a record id as clients and tokens carry it: 24 hex
 * characters. (mongoose's own `isValid` also accepts any 12-character string.)
 */
export function isObjectIdString(value: string): boolean {
  return /^[0-9a-f]{24}$/i.test(value);
}

/** An id that already passed `@ObjectIdField()` validation, as an ObjectId. */
export function toObjectId(id: string): Types.ObjectId {
  return new Types.ObjectId(id);
}
