import { IsInt, Max, Min } from 'class-validator';
import { Extensions } from 'type-graphql';

/**
 * The GraphQL extension of an argument or input field holding what its value
 * must be, in words ("an integer >= 0"): a value GraphQL cannot even read as
 * its type ("abc", 1.5) is refused in the same words as one a rule refuses.
 */
export const VALUE_RULE_EXTENSION = 'valueRule';

/** "an integer >= 0", "an integer from 1 to 100": the rule of an integer field, in words. */
export function integerWords({ min, max }: { min?: number; max?: number }): string {
  if (min !== undefined && max !== undefined) return `an integer from ${min} to ${max}`;
  if (min !== undefined) return `an integer >= ${min}`;
  if (max !== undefined) return `an integer <= ${max}`;
  return 'an integer';
}

/**
 * An integer field's rules, declared once: class-validator's IsInt, Min and
 * Max (rules `isInt`, `min`, `max`, which the JSON Schema lookup reads), each
 * refusal saying the whole rule, and the same words for GraphQL's own
 * refusal of a value that is no integer at all (coercion-problems.ts).
 */
export function IsIntegerIn(bounds: { min?: number; max?: number }): PropertyDecorator {
  const words = integerWords(bounds);
  const message = `$property must be ${words}`;
  const decorators = [
    IsInt({ message }),
    ...(bounds.min !== undefined ? [Min(bounds.min, { message })] : []),
    ...(bounds.max !== undefined ? [Max(bounds.max, { message })] : []),
    Extensions({ [VALUE_RULE_EXTENSION]: words }) as PropertyDecorator,
  ];
  return (target, key) => decorators.forEach((decorator) => decorator(target, key));
}
