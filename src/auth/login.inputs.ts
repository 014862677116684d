import { IsEmail, IsNotEmpty, IsOptional, MaxLength } from 'class-validator';
import { ArgsType, Field } from 'type-graphql';
import { EMAIL_MAX_LENGTH, HasNoIgnoredCharacter } from '../shared/index.js';

/** `login` / `POST /auth/login`: the credentials, validated before the service runs. */
@ArgsType()
export class LoginArgs {
  @Field()
  @IsEmail()
  @MaxLength(EMAIL_MAX_LENGTH)
  @HasNoIgnoredCharacter()
  email!: string;

  @Field()
  @IsNotEmpty()
  @MaxLength(1024)
  password!: string;

  /**
   * The tenant of the account; null: the platform account. Absent: the
   * platform account, else the email's only tenant account.
   */
  @Field(() => String, {
    nullable: true,
    description:
      "The account's tenant; null: the platform account (no tenant). Absent: the platform account with the email, " +
      'else its only tenant account (required when the email exists in several tenants). Compared exactly (letter case counts).',
  })
  @IsOptional()
  @IsNotEmpty()
  tenantId?: string | null;
}
