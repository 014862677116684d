import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { ArgsType, Field } from 'type-graphql';

/** `refreshAccessToken` / `POST /auth/refresh`: the session's current refresh token. */
@ArgsType()
export class RefreshArgs {
  @Field({ description: 'The refresh token the sign-in or the previous refresh answered.' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  refreshToken!: string;
}
