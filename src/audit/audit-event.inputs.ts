import { IsDate, IsOptional, IsString, Length } from 'class-validator';
import { ArgsType, Field } from 'type-graphql';
import { IsObjectId, PageArgs } from '../shared/index.js';

/** The longest id or action a filter accepts (ids are 24 hex, actions `<area>.<verb>`). */
export const AUDIT_FILTER_MAX_LENGTH = 200;

/** `auditEvents` / `GET /audit-events`: a page, newest first, optionally filtered. */
@ArgsType()
export class AuditEventsArgs extends PageArgs {
  // A String (not ID) in the schema, as published; the rule is an id's (a malformed id is 400, any letter case reads as lowercase).
  @Field(() => String, { nullable: true, description: 'Only events by this actor (a user or API key id: 24 hexadecimal characters).' })
  @IsOptional()
  @IsObjectId()
  actor?: string | null;

  @Field(() => String, { nullable: true, description: 'Only events of this action, exact (e.g. menus.create).' })
  @IsOptional()
  @IsString()
  @Length(1, AUDIT_FILTER_MAX_LENGTH)
  action?: string | null;

  @Field(() => String, { nullable: true, description: 'Only events about this record (its id: 24 hexadecimal characters).' })
  @IsOptional()
  @IsObjectId()
  target?: string | null;

  @Field(() => Date, { nullable: true, description: 'Only events at or after this instant (inclusive).' })
  @IsOptional()
  @IsDate()
  from?: Date | null;

  @Field(() => Date, { nullable: true, description: 'Only events at or before this instant (inclusive).' })
  @IsOptional()
  @IsDate()
  to?: Date | null;
}
