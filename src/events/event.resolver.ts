import { Args, Authorized, Query, Resolver } from 'type-graphql';
import { CurrentActor, type Actor } from '../auth/index.js';
import type { Page } from '../shared/index.js';
import { EventsArgs } from './event.inputs.js';
import { ServiceEvent } from './event.model.js';
import type { EventDocument, EventService } from './event.service.js';
import { EventPage } from './event.types.js';

/** Thin: unpack the arguments and the caller, call the service. Built by the composition root (src/service.ts). */
@Resolver(() => ServiceEvent)
export class EventResolver {
  constructor(private readonly log: EventService) {}

  @Authorized('events:read')
  @Query(() => EventPage, {
    description:
      'Events of your tenant (a platform administrator: of every tenant), newest first, a page at a time; ' +
      '`type` is one of the event catalogue, from/to are inclusive bounds of occurredAt.',
  })
  events(@Args() args: EventsArgs, @CurrentActor() actor: Actor): Promise<Page<EventDocument>> {
    return this.log.list(actor, args);
  }
}
