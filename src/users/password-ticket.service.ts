import {
  admitFromAddress,
  hashPassword,
  hasPermission,
  isAccountActive,
  permissionsOfRoles,
  tenantScope,
  type AccountStore,
  type Actor,
  type LoginThrottleSettings,
} from '../auth/index.js';
import { errors } from '../errors/index.js';
import { hashOpaqueSecret, newOpaqueSecret, PASSWORD_TICKET_PREFIX } from '../shared/index.js';
import { TICKET_TTL } from './password-ticket.inputs.js';
import type { LiveTicket, PasswordTicketRecords } from './password-ticket.store.js';
import type { RoleService } from './role.service.js';
import type { UserRecords } from './user.store.js';

/** A ticket as issued: shown once. */
export interface IssuedTicket {
  ticket: string;
  expiresAt: Date;
}

/** A redeemed ticket: whose password was set (for the audit trail) and what its sign-in takes. */
export interface Redemption {
  userId: string;
  email: string;
  tenantId: string | null;
}

/** Unknown, spent, expired, or of a user who may no longer sign in: one answer, so none can be told apart. */
const invalidTicket = () => errors.unauthenticated('Invalid or expired password ticket');

/** What making a ticket asks besides holding what its user holds (the resolver's @Authorized; redeem asks it of the creator again). */
export const TICKET_PERMISSION = 'users:update';

/**
 * One-time password tickets (contract "Users: disabling, deleting,
 * sessions"): an administrator makes one for a user who forgot their
 * password and hands it over out of band; the user sets a new password with
 * it, without signing in. Whoever holds a ticket can sign in as its user, so
 * making one asks what setting their password asks.
 */
export class PasswordTicketService {
  constructor(
    private readonly tickets: PasswordTicketRecords,
    private readonly users: UserRecords,
    private readonly roles: RoleService,
    private readonly accounts: AccountStore,
  ) {}

  /**
   * A ticket for the user `id` of the caller's scope (else 404). Never for a
   * user holding a permission the caller lacks; never for the caller
   * themselves (their password is changed in person, with the current one),
   * whether in person or through an API key acting for them.
   */
  async create(actor: Actor, id: string, ttlSeconds: number = TICKET_TTL.default): Promise<IssuedTicket> {
    const user = await this.users.read(tenantScope(actor), id);
    if (!user) throw errors.notFound('User', id);
    if (id === actor.userId && actor.via.kind === 'api-key') {
      throw errors.forbidden('An API key cannot make a password ticket for the user it acts for: only that user, in person, can');
    }
    if (id === actor.userId) {
      throw errors.forbidden('Your own password is changed in person with changePassword (POST /auth/password), giving the current one: not with a ticket');
    }
    await this.roles.assertHoldsWhatTheyHold(actor, user.tenant_id ?? null, user.roles ?? [], 'password', 'a ticket lets its holder sign in as them');
    const { secret, hash } = newOpaqueSecret(PASSWORD_TICKET_PREFIX);
    const expiresAt = new Date(Date.now() + ttlSeconds * 1000);
    const tokenVersion = user.tokenVersion ?? 0;
    await this.tickets.create({ hash, userId: id, tenant_id: user.tenant_id ?? null, expiresAt, createdBy: actor.userId, tokenVersion });
    return { ticket: secret, expiresAt };
  }

  /**
   * Sets the password with a ticket, throttled as sign-in is (the client IP's
   * counter; 429 with Retry-After). The new password was checked against the
   * rules before this runs (400 naming newPassword, the ticket unspent). The
   * ticket is spent by one conditional delete (of concurrent redeems exactly
   * one goes on); the password is set and `tokenVersion` raised in one write,
   * which ends every session and token of the user; the user's other tickets go.
   */
  async redeem(throttle: LoginThrottleSettings, ip: string, ticket: string, newPassword: string): Promise<Redemption> {
    const attempt = await admitFromAddress(throttle, ip);
    const live = await this.tickets.findLive(hashOpaqueSecret(ticket));
    if (!live || !(await this.stillVouchedFor(live))) throw invalidTicket();
    const passwordHash = await hashPassword(newPassword).catch(async (err: unknown) => {
      // Shed by the bound on Argon2 work (503): nothing was tried, nothing is counted.
      await attempt.unchecked();
      throw err;
    });
    const spent = await this.tickets.spend(live._id);
    if (!spent) throw invalidTicket();
    // Conditional on the version the ticket was made under: an end of the user's tokens meanwhile spends it.
    const user = await this.users.setPasswordEndingSessions(spent.userId, passwordHash, spent.tokenVersion);
    if (!user) throw invalidTicket();
    await Promise.all([this.tickets.dropAllOf(spent.userId), attempt.succeeded()]);
    return { userId: spent.userId, email: user.email, tenantId: user.tenant_id };
  }

  /**
   * Whether the ticket may still set its user's password, as decided now,
   * not when it was made: the user's tokens were not ended since (their
   * tokenVersion is the ticket's), and its creator still exists, is active,
   * holds users:update and every permission the user now holds (the test
   * made at creation, RoleService's): a ticket made for a plain user who has
   * since become an administrator, or by a helpdesk user since demoted, no
   * longer works.
   */
  private async stillVouchedFor(ticket: LiveTicket): Promise<boolean> {
    const [user, creator] = await Promise.all([this.users.read({}, ticket.userId), this.accounts.findAccount(ticket.createdBy)]);
    if (!user || (user.tokenVersion ?? 0) !== ticket.tokenVersion) return false;
    if (!creator || !isAccountActive(creator)) return false;
    const held = { permissions: await permissionsOfRoles(this.accounts, creator.tenantId, creator.roles) };
    if (!hasPermission(held, TICKET_PERMISSION)) return false;
    return (await this.roles.permissionsNotHeld(held, user.tenant_id ?? null, user.roles ?? [])).length === 0;
  }
}
