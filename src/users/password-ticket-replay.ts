/**
 * A createPasswordTicket answer replayed for a repeated `Idempotency-Key`
 * carries no ticket: only its hash is stored, so the replay says how to get
 * another (http/use-idempotency-key.ts stores the replayed form only).
 */
export const REPLAYED_WITHOUT_TICKET =
  'This answer repeats an earlier request with the same Idempotency-Key; the ticket is shown only once. Create another ticket (the first still works until it expires or is redeemed).';

/** The users area's operations whose replayed answers differ from the first. */
export const userReplayedResults = {
  'Mutation.createPasswordTicket': { field: 'ticket', detail: REPLAYED_WITHOUT_TICKET },
};
