import { ObjectType } from 'type-graphql';
import { Paginated } from '../shared/index.js';
import { AuditEvent } from './audit-event.model.js';

/** One page of `auditEvents`, newest first. */
@ObjectType({ description: 'A page of audit events.' })
export class AuditEventPage extends Paginated(AuditEvent, { itemsDescription: 'The events of this page, newest first.' }) {}
