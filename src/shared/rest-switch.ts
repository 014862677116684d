import { Extensions } from 'type-graphql';

/** The field extension naming the Boolean argument a REST answer needs to carry the field (AnsweredOverRestWhen). */
export const REST_SWITCH_EXTENSION = 'answeredOverRestWhen';

/**
 * Declares a field that a REST answer carries only when the operation's
 * Boolean argument `argument` is true (`?includeTotal=true`, `?dryRun=true`):
 * SOFA selects every field of an answer, and such a field either costs work
 * to fill (a list's count) or means nothing without the switch (a dry run's
 * list). GraphQL answers it when selected, as any field.
 */
export function AnsweredOverRestWhen(argument: string): PropertyDecorator {
  return Extensions({ [REST_SWITCH_EXTENSION]: argument }) as PropertyDecorator;
}
