import { IsEmail, IsNotEmpty, IsOptional, MaxLength } from 'class-validator';
import { ArgsType, Field } from 'type-graphql';
import { EMAIL_MAX_LENGTH } from '../shared/credential-rules.js';

/** `login` / `POST /auth/login`: the credentials, validated before the service runs. */
@ArgsType()
export class LoginArgs {
  @Field()
  @IsEmail()
  @MaxLength(EMAIL_MAX_LENGTH)
  email!: string;

  @Field()
  @IsNotEmpty()
  @MaxLength(1024)
  password!: string;

  /**
   * The tenant of the account (exactly: letter case counts); null: the
   * platform account. Absent: the platform account, else the one tenant
   * account with the email whose password matches.
   */
  @Field(() => String, {
    nullable: true,
    description:
      "The account's tenant, exactly as stored (letter case counts); null: the platform account (no tenant). Absent: the platform " +
      'account with the email, else the one tenant account with the email whose password matches (send tenantId when ' +
      'the password is the same in several tenants, or the email is in more than three)',
  })
  @IsOptional()
  @IsNotEmpty()
  tenantId?: string | null;
}
