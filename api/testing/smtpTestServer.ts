/**
 * A real SMTP server (smtp-server) on 127.0.0.1 port 0 for mail tests: it collects every
 * message it accepts, can reject recipients, and accepts any login.
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
  close: () => Promise<void>;
}

export async function startSmtpTestServer(options: { rejectRecipients?: boolean } = {}): Promise<SmtpTestServer> {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username });
    },
    onRcptTo(address, _session, callback) {
      if (!options.rejectRecipients) return callback();
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, messages, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
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
