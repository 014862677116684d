import { ObjectType } from 'type-graphql';
import { Paginated } from '../shared/index.js';
import { User } from './user.model.js';

/** One page of `users`. */
@ObjectType({ description: 'A page of users.' })
export class UserPage extends Paginated(User) {}
