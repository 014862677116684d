import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';

/** Real graphql-ws and graphql-sse clients of /graphql, for every subscription test. */
export interface Stream {
  events: Array<Record<string, any>>;
  errors: Array<Record<string, any>>;
  /** Resolves when the server completes or fails the stream. */
  ended: Promise<void>;
  isEnded(): boolean;
  /** When the server ended it (Date.now()), null while open. */
  endedAt(): number | null;
  dispose(): void;
}

export interface Transport {
  name: string;
  /** `authorization` undefined: none sent; `headers`: more headers of the HTTP request (the WebSocket's upgrade, or the SSE request). */
  open(baseUrl: string, authorization: string | undefined, query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Stream;
}

function collector() {
  let endedAt: number | null = null;
  let resolve!: () => void;
  const stream: Stream = {
    events: [],
    errors: [],
    ended: new Promise<void>((r) => (resolve = r)),
    isEnded: () => endedAt !== null,
    endedAt: () => endedAt,
    dispose: () => {},
  };
  const finish = () => {
    endedAt ??= Date.now();
    resolve();
  };
  const sink = {
    next(value: any) {
      if (value.data?.events) stream.events.push(value.data.events);
      for (const error of value.errors ?? []) stream.errors.push(error);
    },
    error(err: unknown) {
      for (const error of Array.isArray(err) ? err : [err]) stream.errors.push(error instanceof Error ? { message: error.message } : (error as Record<string, any>));
      finish();
    },
    complete: finish,
  };
  return { stream, sink };
}

export const wsTransport: Transport = {
  name: 'WebSocket',
  open(baseUrl, authorization, query, variables = {}, headers = {}) {
    // ws takes the upgrade request's headers as an option of its constructor.
    const withHeaders = class extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, { headers });
      }
    };
    const client = createWsClient({ url: baseUrl.replace(/^http/, 'ws') + '/graphql', webSocketImpl: withHeaders, connectionParams: authorization === undefined ? {} : { Authorization: authorization }, retryAttempts: 0, lazy: true });
    const { stream, sink } = collector();
    const stop = client.subscribe({ query, variables }, sink);
    stream.dispose = () => {
      stop();
      void client.dispose();
    };
    return stream;
  },
};

export const sseTransport: Transport = {
  name: 'SSE',
  open(baseUrl, authorization, query, variables = {}, headers = {}) {
    const client = createSseClient({ url: baseUrl + '/graphql', headers: authorization === undefined ? headers : { ...headers, Authorization: authorization }, retryAttempts: 0 });
    const { stream, sink } = collector();
    const stop = client.subscribe({ query, variables }, sink);
    stream.dispose = () => {
      stop();
      client.dispose();
    };
    return stream;
  },
};

export const transports = [wsTransport, sseTransport];

export async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const codeOf = (stream: Stream) => stream.errors[0]?.extensions?.code ?? stream.errors[0]?.message;

/** Waits until an event appended now reaches `stream`: `probe` appends one and answers its id, every 300 ms until one arrives (the tail starts at its first listener). */
export async function live(stream: Stream, probe: () => Promise<string>): Promise<void> {
  const ids = new Set<string>();
  let next = 0;
  await until(() => {
    if (Date.now() >= next) {
      next = Date.now() + 300;
      void probe().then((id) => ids.add(id));
    }
    if (stream.isEnded()) throw new Error(`the stream ended: ${JSON.stringify(stream.errors)}`);
    return stream.events.some((event) => ids.has(event.id));
  }, 'the stream to be live');
}
