import { ArgsType } from 'type-graphql';
import { ObjectIdField } from '../shared/index.js';
import { UserField } from './user.fields.js';

/** `session(id)`, `endSession(id)` / `GET`, `DELETE /auth/sessions/{id}`. */
@ArgsType()
export class SessionIdArgs {
  @ObjectIdField({ description: 'The session id (the `sid` of its access tokens).' })
  id!: string;
}

/** `changePassword` / `POST /auth/password`: the proof and the new password, under the usual password rules. */
@ArgsType()
export class ChangePasswordArgs {
  @UserField.currentPassword() currentPassword!: string;
  @UserField.password('required', 'The new password: the usual password rules. Stored only as an Argon2id hash.') newPassword!: string;
}
