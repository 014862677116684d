/**
 * Events: what happened in the service, stored as an outbox in the same
 * database as the changes (event.model.ts), followed by every instance
 * through one tail (event-tail.ts) for webhooks and subscriptions. It knows
 * no area.
 */
export { EVENT_COLLECTION, EventActor, EventModel, EventState, EventTarget, ServiceEvent } from './event.model.js';
export { EventTail, type EventTailOptions, type TailedEvent } from './event-tail.js';
export { EventLog, type EventLogOptions, type NewEvent } from './event-log.js';
export { ALL_EVENT_TYPES, AUDITED_EVENT_TYPES, EVENT_TYPES, isEventType, SYSTEM_EVENT_TYPES } from './event-types.js';
export { cascadeKey, EventOutbox, type EventOutboxOptions, type EventOutcome, type PendingEvent } from './event-log.js';
export { EVENT_IDS_FIELD, KEPT_EVENT_IDS, stampEventIds, undoingStamp, withEventStamp } from './event-stamp.js';
export { EventReconciler, type EventReconcilerOptions, type EvidenceCollection, type Settlement } from './event-reconciler.js';
export { EventsArgs, IsEventType } from './event.inputs.js';
export { EventRecords, type EventDocument } from './event.store.js';
export { EventService } from './event.service.js';
export { EventPage } from './event.types.js';
export { EventResolver } from './event.resolver.js';
export { eventRestRoutes } from './events.routes.js';
export { OnceEvents, type OnceEvent } from './once-events.js';
export { SubscriptionSlotModel } from './subscription-slot.model.js';
export { SubscriptionSlots, type SubscriptionSlotsOptions } from './subscription-slots.js';
export { EVENTS_READ, EventSubscriptions, type EventStreamItem, type EventSubscriptionOptions, type SubscriptionCaller } from './event-subscriptions.js';
export { EventSubscriptionArgs, EventSubscriptionResolver, type SubscriptionContext } from './event-subscription.resolver.js';
