import { IsDefined, IsOptional, ValidateIf } from 'class-validator';
import { Field } from 'type-graphql';

/**
 * A field's rules declared once, for the create and update inputs of an
 * area: both take the same field decorators and differ only in whether a
 * field must be there. GraphQL, REST (the same arguments), the JSON Schema
 * lookup and the OpenAPI document all read these declarations.
 *
 * - `required`: must be given, non-null (a create's name, ...);
 * - `optional`: may be absent; `null` clears it;
 * - `unclearable`: may be absent (an update keeps the stored value), but a
 *   required field cannot be cleared: `null` is refused (rule `isDefined`).
 */
export type Presence = 'required' | 'optional' | 'unclearable';

/** A declared field: its decorator for one input, with its presence and, where that input says more, its own description. */
export type DeclaredField = (presence?: Presence, description?: string) => PropertyDecorator;

function compose(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, key) => decorators.forEach((decorator) => decorator(target, key));
}

// IsDefined is the one rule class-validator applies to null while type-graphql skips missing values.
const NotNull = (): PropertyDecorator => IsDefined({ message: '$property is required and cannot be cleared (send a value or leave it out)' });

function presenceRule(presence: Presence, key: string | symbol): PropertyDecorator[] {
  if (presence === 'optional') return [IsOptional()];
  if (presence === 'unclearable') return [ValidateIf((input: Record<string | symbol, unknown>) => input[key] !== undefined), NotNull()];
  return [];
}

// GraphQL must type an optional argument as nullable, so its description says what the type cannot: null is refused.
const UNCLEARABLE_NOTE = 'May be left out (the stored value stays); null is refused, it cannot be cleared.';

function describePresence(description: string | undefined, presence: Presence): string | undefined {
  return presence === 'unclearable' ? [description, UNCLEARABLE_NOTE].filter(Boolean).join(' ') : description;
}

/** A field of GraphQL type `type` with its rules, declared once; each input applies it with a presence. */
export function declaredField(type: () => unknown, description: string | undefined, ...rules: PropertyDecorator[]): DeclaredField {
  return (presence = 'required', own = description) =>
    (target, key) =>
      compose(
        Field(type as () => StringConstructor, { nullable: presence !== 'required', description: describePresence(own, presence) }),
        ...presenceRule(presence, key),
        ...rules,
      )(target, key);
}
