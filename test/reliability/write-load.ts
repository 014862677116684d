import { menuBody, tryCall, userBody } from './reliability.js';

/**
 * A REST write load for the crash proofs: workers create menus and users
 * back to back. A write is acknowledged when it was answered 2xx; those must
 * survive anything that happens afterwards. A write that got no answer is in
 * doubt (it may or may not be there); an answer other than 201 is recorded.
 */
export interface WriteLoad {
  menus: string[];
  users: { id: string; email: string }[];
  /** Answers other than 201, as `status method path`. */
  refusals: string[];
  /** Requests that got no answer (the connection failed). */
  unanswered: number;
  /** Ends the loops after their current request, and resolves once they have. */
  stop(): Promise<void>;
  /** Resolves once at least `count` writes are acknowledged (rejects if the workers end first). */
  untilAcknowledged(count: number): Promise<void>;
  /** Resolves once every worker has ended (stop, or `stopOnFailure` and the service is gone). */
  done: Promise<void>;
}

export interface WriteLoadOptions {
  baseUrl: string;
  token: string;
  adminId: string;
  /** Makes emails and names unique across rounds. */
  tag: string;
  menuWorkers?: number;
  userWorkers?: number;
  /** End a worker at its first unanswered request (the service was killed); else keep going. */
  stopOnFailure: boolean;
}

export function startWriteLoad({ baseUrl, token, adminId, tag, menuWorkers = 4, userWorkers = 1, stopOnFailure }: WriteLoadOptions): WriteLoad {
  let stopped = false;
  let sequence = 0;
  const load = { menus: [] as string[], users: [] as { id: string; email: string }[], refusals: [] as string[], unanswered: 0 };

  async function worker(kind: 'menu' | 'user'): Promise<void> {
    while (!stopped) {
      const n = sequence++;
      const email = `load-${tag}-${n}@example.com`;
      const [urlPath, body] =
        kind === 'menu' ? ['/api/v1/restaurant/meal-menus', menuBody(`${tag}-${n}`)] : ['/api/v1/access-control/users', userBody(email, adminId)];
      const answer = await tryCall(baseUrl, 'POST', urlPath, { body, token });
      if (!answer) {
        load.unanswered += 1;
        if (stopOnFailure) return;
        continue;
      }
      if (answer.status === 201 && kind === 'menu') load.menus.push(String(answer.body.id));
      else if (answer.status === 201) load.users.push({ id: String(answer.body.id), email });
      else load.refusals.push(`${answer.status} POST ${urlPath}`);
    }
  }

  const done = Promise.all([
    ...Array.from({ length: menuWorkers }, () => worker('menu')),
    ...Array.from({ length: userWorkers }, () => worker('user')),
  ]).then(() => undefined);
  const untilAcknowledged = async (count: number) => {
    let ended = false;
    void done.then(() => (ended = true));
    while (load.menus.length + load.users.length < count) {
      if (ended) throw new Error(`the write load ended with ${load.menus.length + load.users.length} of ${count} writes acknowledged`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return Object.assign(load, {
    done,
    untilAcknowledged,
    stop: () => {
      stopped = true;
      return done;
    },
  });
}

/** Acknowledged writes that the service no longer finds (GET by id); empty when all are there. */
export async function missingWrites(baseUrl: string, token: string, writes: { menus: string[]; users: { id: string; email: string }[] }): Promise<string[]> {
  const missing: string[] = [];
  // A few at a time: the check itself should not be a load test.
  const checks = [
    ...writes.menus.map((id) => async () => {
      const answer = await tryCall(baseUrl, 'GET', `/api/v1/restaurant/meal-menus/${id}`, { token });
      if (answer?.status !== 200 || answer.body.id !== id) missing.push(`menu ${id}: ${answer?.status ?? 'no answer'}`);
    }),
    ...writes.users.map(({ id, email }) => async () => {
      const answer = await tryCall(baseUrl, 'GET', `/api/v1/access-control/users/${id}`, { token });
      if (answer?.status !== 200 || answer.body.email !== email) missing.push(`user ${email}: ${answer?.status ?? 'no answer'}`);
    }),
  ];
  for (let i = 0; i < checks.length; i += 8) await Promise.all(checks.slice(i, i + 8).map((check) => check()));
  return missing;
}

/**
 * The unique email index under a race: `count` concurrent creates of one new
 * email. Gives the statuses, sorted (expected: one 201, the rest 409).
 */
export async function raceForEmail(baseUrl: string, token: string, adminId: string, email: string, count = 4): Promise<Array<number | string>> {
  const answers = await Promise.all(
    Array.from({ length: count }, () => tryCall(baseUrl, 'POST', '/api/v1/access-control/users', { body: userBody(email, adminId), token })),
  );
  return answers.map((answer) => answer?.status ?? 'no answer').sort();
}
