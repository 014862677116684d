import { IsDate, IsOptional, IsString, Length } from 'class-validator';
import { ArgsType, Field } from 'type-graphql';
import { PageArgs } from '../shared/pagination.js';

/** The longest id or action a filter accepts (ids are 24 hex, actions `<area>.<verb>`). */
export const AUDIT_FILTER_MAX_LENGTH = 200;

/** `auditEvents` / `GET /audit-events`: a page, newest first, optionally filtered. */
@ArgsType()
export class AuditEventsArgs extends PageArgs {
  @Field(() => String, { nullable: true, description: 'Only events by this actor (a user or API key id, exact).' })
  @IsOptional()
  @IsString()
  @Length(1, AUDIT_FILTER_MAX_LENGTH)
  actor?: string | null;

  @Field(() => String, { nullable: true, description: 'Only events of this action, exact (e.g. menus.create).' })
  @IsOptional()
  @IsString()
  @Length(1, AUDIT_FILTER_MAX_LENGTH)
  action?: string | null;

  @Field(() => String, { nullable: true, description: 'Only events about this record id (exact).' })
  @IsOptional()
  @IsString()
  @Length(1, AUDIT_FILTER_MAX_LENGTH)
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
