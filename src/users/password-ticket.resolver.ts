import { Args, Authorized, Ctx, Mutation, Resolver, UseMiddleware } from 'type-graphql';
import { asEvent, Audited, AuditActorType, declareAuditAction, AuditOutcome, recordAuditEvent, type AuditedContext } from '../audit/index.js';
import { CurrentActor, type Actor } from '../auth/index.js';
import { OncePerRequest } from '../graphql/index.js';
import { CreatePasswordTicketArgs, RedeemPasswordTicketArgs } from './password-ticket.inputs.js';
import { TICKET_PERMISSION, type IssuedTicket, type PasswordTicketService } from './password-ticket.service.js';
import { IssuedPasswordTicket, RedeemedPasswordTicket } from './password-ticket.types.js';

/** Thin: unpack the arguments and the caller, call the service. Built by the composition root with its service (src/service.ts). */
@Resolver()
export class PasswordTicketResolver {
  constructor(private readonly service: PasswordTicketService) {}

  @Authorized(TICKET_PERMISSION)
  @OncePerRequest()
  @UseMiddleware(Audited('users.password-ticket', { targetType: 'User' }))
  @Mutation(() => IssuedPasswordTicket, {
    description:
      'A one-time ticket that sets the password of a user of your tenant (redeemPasswordTicket), shown once; only its hash is stored. ' +
      'Needs users:update and every permission the user holds (its holder can sign in as them); never for yourself (changePassword). ' +
      'Redeeming asks again that its creator still may, and that the user\'s tokens were not ended since (a password change, a disable).',
  })
  createPasswordTicket(@Args() { id, ttlSeconds }: CreatePasswordTicketArgs, @CurrentActor() actor: Actor): Promise<IssuedTicket> {
    return this.service.create(actor, id, ttlSeconds);
  }

  @OncePerRequest()
  @Mutation(() => RedeemedPasswordTicket, {
    description:
      'Sets a new password with a password ticket; open to anyone (the ticket is the proof). Ends every session and token of the user and spends ' +
      'the ticket: a second use, an expired or an unknown ticket is the same 401. Throttled as sign-in is (429 with Retry-After).',
  })
  async redeemPasswordTicket(@Args() { ticket, newPassword }: RedeemPasswordTicketArgs, @Ctx() context: AuditedContext): Promise<RedeemedPasswordTicket> {
    // No caller to record by the Audited middleware: the event and the record name the ticket's user, known once redeemed.
    const redeemed = await asEvent(context, REDEEM_EVENT, () => this.service.redeem(context.config.loginThrottle, context.ip, ticket, newPassword), redeemedEvent);
    await recordAuditEvent(context, {
      actor: { type: AuditActorType.user, id: redeemed.userId },
      action: REDEEM_EVENT.type,
      target: { type: 'User', id: redeemed.userId },
      tenant_id: redeemed.tenantId,
      changes: ['password'],
      outcome: AuditOutcome.success,
      requestId: context.requestId,
      ip: context.ip,
    });
    return { email: redeemed.email, tenantId: redeemed.tenantId };
  }
}

/** The redeem's event as the outbox opens it: its user (actor and target) is known once the ticket is spent. */
const REDEEM_EVENT = {
  type: declareAuditAction('auth.password-ticket-redeem'),
  tenant_id: null,
  actor: { type: 'user', id: null },
  target: { type: 'User', id: null },
  data: { changes: ['password'] },
  actorIsTarget: true,
};
const redeemedEvent = ({ userId, tenantId }: { userId: string; tenantId: string | null }) => ({
  actor: { type: 'user', id: userId },
  tenant_id: tenantId,
  target: { type: 'User', id: userId },
  data: { changes: ['password'] },
  alsoChanged: [],
});
