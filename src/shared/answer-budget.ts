import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The bytes of records one API answer may still carry (PAGE_BYTE_BUDGET). A
 * record may be as large as the request body limit, so a page of 100 of them
 * would be some 74 MB, and aliases of the same list in one GraphQL request
 * multiply that: every list page draws on the one budget of its request and
 * ends early, with its `nextCursor`, once the budget is spent (findPage).
 * Each page still answers at least one record, so a walk always moves on.
 */
export const DEFAULT_PAGE_BYTE_BUDGET = 4 * 1024 * 1024;

export class AnswerBudget {
  private spent = 0;

  constructor(readonly bytes: number) {}

  get remaining(): number {
    return Math.max(this.bytes - this.spent, 0);
  }

  spend(bytes: number): void {
    this.spent += bytes;
  }
}

const budgets = new AsyncLocalStorage<AnswerBudget>();

/** Runs `fn` (one request) with a budget of `bytes` shared by every page it reads. */
export function withAnswerBudget<T>(bytes: number, fn: () => T): T {
  return budgets.run(new AnswerBudget(bytes), fn);
}

/** The budget of the request being served; outside one (scripts, the CLI), a fresh default one per call. */
export function currentAnswerBudget(): AnswerBudget {
  return budgets.getStore() ?? new AnswerBudget(DEFAULT_PAGE_BYTE_BUDGET);
}
