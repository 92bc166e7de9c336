/**
 * A real SMTP server (smtp-server) on 127.0.0.1 port 0 for mail tests: it collects every
 * message it accepts, can reject recipients, and accepts any login. It counts connections, so
 * a test can show that a refused request never reached it.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string | null;
  to: string[];
  raw: string;
  /** The login the client authenticated with, if any. */
  username: string | null;
}

export interface SmtpTestServer {
  port: number;
  messages: ReceivedMail[];
  /** How many clients have connected so far. */
  readonly connections: number;
  /** Socket errors of clients that went away mid-conversation (see below): kept, never thrown. */
  readonly clientErrors: Error[];
  close: () => Promise<void>;
}

/** `rejectRecipients`: refuse every recipient, or those the function picks (550, as a mailbox that does not exist). */
export async function startSmtpTestServer(options: { rejectRecipients?: boolean | ((address: string) => boolean) } = {}): Promise<SmtpTestServer> {
  const messages: ReceivedMail[] = [];
  let connections = 0;
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    onConnect(_session, callback) {
      connections += 1;
      callback();
    },
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username });
    },
    onRcptTo(address, _session, callback) {
      const reject = typeof options.rejectRecipients === 'function' ? options.rejectRecipients(address.address) : options.rejectRecipients === true;
      if (!reject) return callback();
      callback(Object.assign(new Error(`Mailbox ${address.address} unavailable`), { responseCode: 550 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
          raw: Buffer.concat(chunks).toString('utf8'),
          username: typeof session.user === 'string' ? session.user : null,
        });
        callback();
      });
    },
  });
  // smtp-server re-emits a client's socket error on the server when it happens during a
  // transaction (a reset after MAIL FROM, as a client that closes on a rejected recipient can
  // cause under load); without a listener that is an uncaught 'error' that ends the test process.
  const clientErrors: Error[] = [];
  server.on('error', (error: Error) => clientErrors.push(error));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    messages,
    get connections() {
      return connections;
    },
    clientErrors,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A port nothing listens on, for transport failures. */
export { freePort as closedPort } from './freePort.ts';

/** The decoded `Subject` header of a raw message (RFC 2047 encoded words, folded lines). */
export function subjectOf(raw: string): string {
  const header = /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(raw)?.[1] ?? '';
  return header
    .replace(/\r?\n[ \t]/g, ' ')
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?([qb])\?([^?]*)\?=/gi, (_match, encoding: string, text: string) =>
      encoding.toLowerCase() === 'b'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_hex, code: string) => String.fromCharCode(Number.parseInt(code, 16))), 'latin1').toString('utf8'),
    );
}

/** Decodes the quoted-printable body parts of a raw message, enough to search its text. */
export function decodedText(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/(?:=[0-9A-F]{2})+/g, (match) => Buffer.from(match.replace(/=/g, ''), 'hex').toString('utf8'));
}

export interface MailParts {
  /** Header values by lower-case name, unfolded (the first of each name). */
  headers: Map<string, string>;
  text: string | null;
  html: string | null;
}

function decodeQuotedPrintable(body: string): string {
  const bytes: number[] = [];
  const unfolded = body.replace(/=\r?\n/g, '');
  for (let i = 0; i < unfolded.length; i += 1) {
    const hex = unfolded[i] === '=' ? /^[0-9A-F]{2}$/i.exec(unfolded.slice(i + 1, i + 3))?.[0] : undefined;
    if (hex) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else bytes.push(unfolded.charCodeAt(i));
  }
  return Buffer.from(bytes).toString('utf8');
}

function splitEntity(raw: string): { headers: Map<string, string>; body: string } {
  const separator = /\r?\n\r?\n/.exec(raw);
  const head = separator ? raw.slice(0, separator.index) : raw;
  const body = separator ? raw.slice(separator.index + separator[0].length) : '';
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n(?=[ \t])/g, '').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    if (colon > 0 && !headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
  }
  return { headers, body };
}

function decodedBody(headers: Map<string, string>, body: string): string {
  const encoding = headers.get('content-transfer-encoding')?.toLowerCase();
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body);
  if (encoding === 'base64') return Buffer.from(body.replace(/\s/g, ''), 'base64').toString('utf8');
  return body;
}

/** The headers and the decoded plain-text and HTML parts of a raw message (a single part or multipart/alternative). */
export function mailParts(raw: string): MailParts {
  const { headers, body } = splitEntity(raw);
  const parts: MailParts = { headers, text: null, html: null };
  const contentType = headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  const entities = boundary
    ? body.split(`--${boundary}`).slice(1, -1).map((part) => splitEntity(part.replace(/^\r?\n/, '')))
    : [{ headers, body }];
  for (const entity of entities) {
    const type = entity.headers.get('content-type')?.toLowerCase() ?? 'text/plain';
    const decoded = decodedBody(entity.headers, entity.body).replace(/\r\n/g, '\n').replace(/\n$/, '');
    if (type.startsWith('text/plain')) parts.text ??= decoded;
    else if (type.startsWith('text/html')) parts.html ??= decoded;
  }
  return parts;
}
