import { Args, ArgsType, Authorized, Field, Resolver, Root, Subscription } from 'type-graphql';
import type { AppContext } from '../auth/index.js';
import { errors } from '../errors/index.js';
import { ServiceEvent } from './event.model.js';
import { EVENTS_READ, type EventStreamItem, type EventSubscriptions, type SubscriptionCaller } from './event-subscriptions.js';

@ArgsType()
export class EventSubscriptionArgs {
  @Field(() => [String], { nullable: true, description: 'Only events of these types (the catalogue in docs/events.md; "*" or none: every type).' })
  types?: string[] | null;
}

/**
 * The context of a subscription: the request's, with the caller as the
 * transport authenticated it and the streams (built by the composition root,
 * src/service.ts; only the WebSocket and SSE transports make it).
 */
export interface SubscriptionContext extends AppContext {
  subscription?: { caller: SubscriptionCaller; streams: EventSubscriptions };
}

const NOT_A_STREAM = 'Subscriptions are served over WebSocket (graphql-transport-ws) or Server-Sent Events (Accept: text/event-stream) on /graphql';

/** Opens the caller's stream; type-graphql's `subscribe` gets the context, not the resolver instance. */
function openStream({ args, context }: { args: EventSubscriptionArgs; context: SubscriptionContext }): Promise<AsyncIterableIterator<EventStreamItem>> {
  if (!context.subscription) return Promise.reject(errors.badInput(NOT_A_STREAM));
  return context.subscription.streams.open(context.subscription.caller, args.types);
}

@Resolver()
export class EventSubscriptionResolver {
  @Authorized(EVENTS_READ)
  @Subscription(() => ServiceEvent, {
    subscribe: openStream as never,
    description:
      'Events as they are committed: your tenant\'s (a platform administrator: every tenant\'s), of the types asked for. ' +
      'Over WebSocket (graphql-transport-ws) or SSE (graphql-sse) on /graphql; ends with an error when the credential no longer holds.',
  })
  events(@Root() item: EventStreamItem | undefined, @Args() _args: EventSubscriptionArgs): ServiceEvent {
    // A plain POST /graphql runs the field as a query, with no event to resolve.
    if (!item) throw errors.badInput(NOT_A_STREAM);
    if ('end' in item) throw item.end;
    return item.event as unknown as ServiceEvent;
  }
}
