import { Field, ObjectType } from 'type-graphql';

/** What `createPasswordTicket` answers, once. */
@ObjectType({ description: 'A one-time password ticket: send it to its user out of band; it is shown this once.' })
export class IssuedPasswordTicket {
  @Field(() => String, {
    nullable: true,
    description:
      'The ticket (pt_...). Only its SHA-256 is stored: it is null in an answer replayed for a repeated Idempotency-Key ' +
      '(whose `detail` member says so: create another ticket).',
  })
  ticket!: string | null;

  @Field({ description: 'When the ticket stops working.' })
  expiresAt!: Date;
}

/** What `redeemPasswordTicket` answers: what the sign-in that follows takes. */
@ObjectType({ description: 'The password is set and every earlier session and token of the user ended: sign in with it.' })
export class RedeemedPasswordTicket {
  @Field({ description: 'The email to sign in with.' })
  email!: string;

  @Field(() => String, { nullable: true, description: "The account's tenant (login's tenantId); null: a platform account." })
  tenantId!: string | null;
}
