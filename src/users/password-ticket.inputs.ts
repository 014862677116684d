import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { ArgsType, Field, Int } from 'type-graphql';
import { IsIntegerIn, ObjectIdField } from '../shared/index.js';
import { UserField } from './user.fields.js';

/** How long a ticket may be redeemed: a minute to a week, a day unless asked. */
export const TICKET_TTL = { min: 60, max: 604_800, default: 86_400 } as const;

/** `createPasswordTicket` / `POST /access-control/users/{id}/password-ticket`. */
@ArgsType()
export class CreatePasswordTicketArgs {
  @ObjectIdField({ description: 'The user whose password the ticket sets.' })
  id!: string;

  // Int! with a default, as `limit` and `gracePeriodSeconds`: left out is the default, null is refused (400 naming it).
  @Field(() => Int, { defaultValue: TICKET_TTL.default, description: `Seconds the ticket may be redeemed: ${TICKET_TTL.min} to ${TICKET_TTL.max} (a week); ${TICKET_TTL.default} (a day) when left out.` })
  @IsIntegerIn({ min: TICKET_TTL.min, max: TICKET_TTL.max })
  ttlSeconds: number = TICKET_TTL.default;
}

/** `redeemPasswordTicket` / `POST /auth/password-ticket`: no credential; the ticket is the proof. */
@ArgsType()
export class RedeemPasswordTicketArgs {
  @Field({ description: 'The ticket createPasswordTicket answered (pt_...).' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  ticket!: string;

  @UserField.password('required', 'The new password (format password), under the rule every password follows; a refused one leaves the ticket unspent.')
  newPassword!: string;
}
