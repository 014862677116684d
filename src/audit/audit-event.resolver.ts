import { Args, Authorized, Query, Resolver } from 'type-graphql';
import { CurrentActor, type Actor } from '../auth/index.js';
import type { Page } from '../shared/index.js';
import { AuditEventsArgs } from './audit-event.inputs.js';
import { AuditEvent } from './audit-event.model.js';
import type { AuditEventDocument, AuditEventService } from './audit-event.service.js';
import { AuditEventPage } from './audit-event.types.js';

/**
 * Thin: unpack the arguments and the caller, call the service. Read only: no operation edits the trail.
 * Built by the composition root with its service (src/service.ts).
 */
@Resolver(() => AuditEvent)
export class AuditEventResolver {
  constructor(private readonly events: AuditEventService) {}

  @Authorized('audit:read')
  @Query(() => AuditEventPage, {
    description:
      'Audit events of your tenant (a platform administrator: of every tenant), newest first, a page at a time; ' +
      'filters are exact ids or action, from/to are inclusive.',
  })
  auditEvents(@Args() args: AuditEventsArgs, @CurrentActor() actor: Actor): Promise<Page<AuditEventDocument>> {
    return this.events.list(actor, args);
  }
}
