import { IsDate, IsOptional, IsString, ValidateBy } from 'class-validator';
import { ArgsType, Field } from 'type-graphql';
import { PageArgs } from '../shared/index.js';
import { EVENT_TYPES, isEventType } from './event-types.js';

/** A type of the catalogue (event-types.ts); the rule is `eventType`. */
export function IsEventType(): PropertyDecorator {
  return ValidateBy({
    name: 'eventType',
    validator: {
      validate: (value) => typeof value === 'string' && isEventType(value),
      defaultMessage: () => `$property must be an event type of the catalogue (${EVENT_TYPES.join(', ')})`,
    },
  });
}

/** `events` / `GET /events`: a page of committed events, newest first, optionally filtered. */
@ArgsType()
export class EventsArgs extends PageArgs {
  @Field(() => String, { nullable: true, description: 'Only events of this type, exact (e.g. api-keys.revoke); one of the event catalogue.' })
  @IsOptional()
  @IsString()
  @IsEventType()
  type?: string | null;

  @Field(() => Date, { nullable: true, description: 'Only events that occurred at or after this instant (inclusive).' })
  @IsOptional()
  @IsDate()
  from?: Date | null;

  @Field(() => Date, { nullable: true, description: 'Only events that occurred at or before this instant (inclusive).' })
  @IsOptional()
  @IsDate()
  to?: Date | null;
}
