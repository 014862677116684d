import { Field, ID, Int, ObjectType } from 'type-graphql';
import { Paginated } from '../shared/index.js';
import { User } from './user.model.js';

/** One page of `users`. */
@ObjectType({ description: 'A page of users.' })
export class UserPage extends Paginated(User) {}

/** What `deleteUser` answers: the record is kept (for the audit trail) but answers no read any more. */
@ObjectType({ description: 'A deleted user: its id, when it was deleted, and how many API keys the delete revoked.' })
export class DeletedUser {
  @Field(() => ID, { description: 'The id of the deleted user.' })
  id!: string;

  @Field(() => Date, { description: 'When the user was deleted.' })
  deletedAt!: Date;

  @Field(() => Int, { description: 'How many API keys the delete revoked: the keys the user made, and the keys those made.' })
  revokedKeys!: number;

  @Field(() => String, { nullable: true, description: 'The tenant the user belonged to; null for a platform user.' })
  tenant_id!: string | null;
}
