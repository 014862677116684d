import { ObjectType } from 'type-graphql';
import { Paginated } from '../shared/index.js';
import { ServiceEvent } from './event.model.js';

/** One page of `events`, newest first. */
@ObjectType({ description: 'A page of events.' })
export class EventPage extends Paginated(ServiceEvent, { itemsDescription: 'The events of this page, newest first.' }) {}
