import { connect, type Socket } from 'node:net';

/** What came back on a raw socket: the status, the head's headers (names lower-cased), the body and the whole text. */
export interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  body: string;
  text: string;
}

/**
 * Writes `request` to the server at `baseUrl` exactly as given (no client
 * normalises it) and reads the whole answer until the server closes the
 * connection (send `Connection: close`, or a request the server refuses).
 */
export function rawExchange(baseUrl: string, request: string): Promise<RawAnswer> {
  return exchange(baseUrl, (socket) => socket.write(request));
}

/**
 * Writes `head`, then `trickle` one byte every `everyMs` (a slow client), and
 * reads the answer until the server closes the connection; bytes left when it
 * closes are not sent. `trickle` empty: the client sends nothing more.
 */
export function trickledExchange(baseUrl: string, head: string, trickle: string, everyMs: number): Promise<RawAnswer> {
  return exchange(baseUrl, (socket) => {
    socket.write(head);
    let sent = 0;
    const timer = setInterval(() => {
      if (sent >= trickle.length || !socket.writable) return clearInterval(timer);
      socket.write(trickle[sent++]);
    }, everyMs);
    socket.once('close', () => clearInterval(timer));
  });
}

function exchange(baseUrl: string, send: (socket: Socket) => void): Promise<RawAnswer> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (text += chunk));
    socket.on('end', () => {
      const split = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = (split < 0 ? text : text.slice(0, split)).split('\r\n');
      const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0), headers, body: split < 0 ? '' : text.slice(split + 4), text });
      socket.end();
    });
    socket.on('error', reject);
    send(socket);
  });
}
