import { ObjectType } from 'type-graphql';
import { Paginated } from '../shared/index.js';
import { Role } from './role.model.js';

/** One page of `roles`; the first page starts with the built-in roles. */
@ObjectType({ description: 'A page of roles; the first page starts with the built-in roles admin and member.' })
export class RolePage extends Paginated(Role) {}
