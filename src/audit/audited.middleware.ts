import type { MiddlewareFn } from 'type-graphql';
import { isTenantId, type Actor, type AppContext } from '../auth/index.js';
import type { EventOutbox, EventOutcome, PendingEvent } from '../events/index.js';
import { AppError } from '../errors/index.js';
import { isObjectIdString } from '../shared/index.js';
import { AuditActorType, AuditOutcome, type AuditActor } from './audit-event.model.js';
import type { AuditEventService, NewAuditEvent } from './audit-event.service.js';

export interface AuditedOptions {
  /** The GraphQL type name of the record the operation addresses, e.g. `MealMenu`. */
  targetType: string;
  /** The call removes the record it names (a hard delete): no record is left to carry its event id (docs/events.md). */
  removesTarget?: boolean;
  /** Calls not recorded at all, by their arguments (e.g. a dry run, which changes nothing). */
  skip?: (args: Record<string, unknown>) => boolean;
}

/** What the resolver of the call being recorded reports besides its answer (reportAlsoChanged). */
interface AuditNote {
  alsoChanged: readonly string[];
}

/**
 * The context while a call is recorded: its note, set for the length of the
 * call. A request holds one audited call at most: they are mutations, a
 * request makes one (graphql/one-mutation.rule.ts), and batches are refused.
 */
type RecordingContext = AppContext & { auditNote?: AuditNote };

/**
 * Ids of further records of the call's `targetType` it changed besides the
 * one it answers (a revoke revoking the keys the revoked key created): each
 * gets a success record of its own, the same in all but the target. Called
 * by the resolver of an audited mutation; outside one there is nothing to record.
 */
export function reportAlsoChanged(context: AppContext, ids: readonly string[]): void {
  const note = (context as RecordingContext).auditNote;
  if (note) note.alsoChanged = ids;
}

type Args = Record<string, unknown>;

/**
 * The context of a service whose operations are audited: the trail the
 * composition root built (src/service.ts) rides with every request, so the
 * middleware holds no trail of its own and each service drains its own.
 */
export interface AuditedContext extends AppContext {
  auditTrail: Pick<AuditEventService, 'record'>;
  /** The event outbox: each successful record is also an event (absent: records only). */
  eventOutbox?: Pick<EventOutbox, 'around'>;
}

/** A request context factory whose contexts also carry `trail` (and the event outbox). */
export function withAuditTrail<Request extends unknown[]>(
  createContext: (...request: Request) => Promise<AppContext>,
  trail: AuditedContext['auditTrail'],
  eventOutbox?: AuditedContext['eventOutbox'],
): (...request: Request) => Promise<AuditedContext> {
  return async (...request) => Object.assign(await createContext(...request), { auditTrail: trail, eventOutbox });
}

/**
 * Records one audit event per call of a mutation, declared on it:
 * `@UseMiddleware(Audited('menus.create', { targetType: 'MealMenu' }))`.
 *
 * It runs after `@Authorized` (a call refused for its credential or its
 * permissions never reaches it) and around argument validation and the
 * resolver, so a 400 from validation, a 404 or a 409 is recorded as a
 * `failure` and rethrown unchanged. A call without an authenticated caller is
 * not recorded (it is refused before anything happens).
 *
 * - target id: the result's `id`, else the `id` argument (null when neither,
 *   or when a failed call's `id` is no record id);
 * - tenant: the result's `tenant_id`, else the `tenant_id` argument, else the
 *   caller's tenant. A failure has no result, and a tenant member is recorded
 *   in its own tenant whatever it named (a platform caller's named tenant
 *   only when it is a tenant id);
 * - changes: the names of the arguments given (not undefined), except `id`; never a value;
 * - one more success record per further record the call changed, as its resolver reports them (reportAlsoChanged).
 *
 * The record is written before the answer leaves, so it can be read right
 * after. A record that cannot be written is logged and does not change the
 * answer.
 *
 * The call is also an event, through the outbox (docs/events.md): written
 * pending before the call (refused with the call if it cannot be), every
 * write of the call stamped with its id (event-stamp.ts), committed on
 * success with one more per further record, removed on failure. A commit or
 * removal that cannot be written is logged: the reconciler settles it.
 */
export function Audited(action: string, { targetType, skip, removesTarget }: AuditedOptions): MiddlewareFn<AuditedContext> {
  declareAuditAction(action);
  declaredTargetTypes.add(targetType);
  return async ({ args, context }, next) => {
    const { actor } = context;
    if (!actor || skip?.(args)) return next();
    const base = {
      actor: auditActorOf(actor),
      action,
      changes: givenArgumentNames(args),
      requestId: context.requestId,
      ip: context.ip,
    };

    const note: AuditNote = { alsoChanged: [] };
    const successOf = (answer: Args) => ({ ...base, tenant_id: textOf(answer['tenant_id']) ?? textOf(args['tenant_id']) ?? actor.tenantId, outcome: AuditOutcome.success });
    const targetsOf = (answer: Args) => [idOf(answer) ?? idOf(args), ...note.alsoChanged];
    // Arguments as sent, before validation: only an id or tenant id of the right form is kept (a key's
    // secret pasted where its id belongs would otherwise be stored for every audit and event reader).
    const pending: Omit<PendingEvent, 'id'> = {
      type: action,
      tenant_id: actor.tenantId ?? wellFormed(textOf(args['tenant_id']), isTenantId),
      actor: base.actor,
      target: { type: targetType, id: wellFormed(idOf(args), isObjectIdString) },
      data: { changes: base.changes },
      removesTarget,
    };
    const committed = (result: unknown): EventOutcome => {
      const answer = (result ?? {}) as Args;
      const target = { type: targetType, id: targetsOf(answer)[0]! };
      return { tenant_id: successOf(answer).tenant_id, target, data: { changes: base.changes }, alsoChanged: note.alsoChanged };
    };
    let result: unknown;
    try {
      (context as RecordingContext).auditNote = note;
      const run = async () => next();
      // A refusal whose change stands (an undo that could not be written) is an event all the same, of the target it named.
      const stood = (error: unknown): EventOutcome | null =>
        error instanceof AppError && error.changeStands ? { tenant_id: pending.tenant_id, target: pending.target, data: pending.data ?? {}, alsoChanged: [] } : null;
      result = await (context.eventOutbox ? context.eventOutbox.around(pending, run, committed, settleErrorLogger(context), stood) : run());
    } catch (error) {
      await write(context, { ...base, target: pending.target, tenant_id: pending.tenant_id, outcome: AuditOutcome.failure });
      throw error;
    } finally {
      delete (context as RecordingContext).auditNote;
    }
    const answer = (result ?? {}) as Args;
    const success = successOf(answer);
    const targets = targetsOf(answer);
    await Promise.all(targets.map((id) => write(context, { ...success, target: { type: targetType, id } })));
    return result;
  };
}

/**
 * Runs a change the middleware cannot record (one of a call without a
 * caller: redeeming a password ticket) through the outbox as the middleware
 * does; `outcomeOf` says what the event commits as (null: nothing changed).
 */
export function asEvent<T>(context: AuditedContext, event: Omit<PendingEvent, 'id'>, call: () => Promise<T>, outcomeOf: (result: T) => EventOutcome | null): Promise<T> {
  return context.eventOutbox ? context.eventOutbox.around(event, call, outcomeOf, settleErrorLogger(context)) : call();
}

/** A commit or removal that fails is logged and left to the reconciler (the evidence decides); the answer is unchanged. */
export function settleErrorLogger(context: AppContext): (err: unknown, what: string) => void {
  return (err, what) => context.logger.error({ err }, `event could not be ${what}; the reconciler settles it`);
}

const declaredActions = new Set<string>();
const declaredTargetTypes = new Set<string>();

/** The target types of every `Audited` declaration: each needs its records stamped as the outbox's evidence (a test checks the composition root's list). */
export const auditedTargetTypes: ReadonlySet<string> = declaredTargetTypes;

/**
 * Every action the service records: each `Audited` declaration adds its own
 * when its resolver is loaded, and a record written outside the middleware
 * declares its action once (declareAuditAction). A test keeps the event
 * catalogue's audited half equal to it.
 */
export const auditActions: ReadonlySet<string> = declaredActions;

/** Declares an action recorded outside the middleware; answers it. */
export function declareAuditAction<Action extends string>(action: Action): Action {
  declaredActions.add(action);
  return action;
}

/** The caller as the trail names it: the API key itself, or the user. */
function auditActorOf(actor: Actor): AuditActor {
  return actor.via.kind === 'api-key'
    ? { type: AuditActorType.apiKey, id: actor.via.apiKeyId }
    : { type: AuditActorType.user, id: actor.userId };
}

/**
 * Arguments that carry a value, except `id`. An argument the caller left out
 * is undefined unless its schema gives a default: then it is named too, as
 * the operation sets it (REST runs a document that declares the defaults, so
 * this is the one rule both surfaces share).
 */
function givenArgumentNames(args: Args): string[] {
  return Object.keys(args).filter((name) => name !== 'id' && args[name] !== undefined);
}

function idOf(source: Args): string | null {
  return textOf(source['id']);
}

function wellFormed(value: string | null, rule: (value: string) => boolean): string | null {
  return value !== null && rule(value) ? value : null;
}

/** A string, or an ObjectId as its hex string; anything else is no value. */
function textOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && 'toHexString' in value && typeof value.toHexString === 'function') {
    return String(value.toHexString());
  }
  return null;
}

async function write(context: AuditedContext, event: NewAuditEvent): Promise<void> {
  try {
    await context.auditTrail.record(event);
  } catch (err) {
    context.logger.error(
      { err, audit: { action: event.action, outcome: event.outcome, target: event.target } },
      'audit event could not be written',
    );
  }
}

/**
 * Records an event the middleware cannot: one of a call without a caller
 * (redeeming a password ticket names the ticket's user). Like the
 * middleware's own records, one that cannot be written is logged and does
 * not change the answer.
 */
export const recordAuditEvent: (context: AuditedContext, event: NewAuditEvent) => Promise<void> = write;
