/**
 * Account mail as a job, end to end over HTTP with a real worker and real SMTP servers: the
 * request enqueues the job in its own transaction and answers without waiting for SMTP (shown
 * with a relay that holds its greeting), the job is retried until the relay takes the mail,
 * and the link exists only in the mail: not in the job's payload, the delivery record, the
 * audit log or any log line of the API and the worker.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { AuditEntry, EmailToken, MailOutboxEntry, User } from '../models/index.ts';
import { completeSetup, resetRateLimits } from '../testing/fixtures.ts';
import { waitFor } from '../testing/polling.ts';
import { accountMailJobs, capturingLogger, saveSmtpRelay, startMailRelay, type MailRelay } from '../testing/mailRelay.ts';
import { closedPort } from '../testing/smtpTestServer.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const PASSWORD = 'a long enough password';

let counter = 0;
function newAccount() {
  counter += 1;
  return { username: `queued${counter}`, email: `queued${counter}@example.org`, password: PASSWORD };
}

/** The worker sends in its own time (and retries later): poll for a while. */
const MAIL_PATIENCE_MS = 20_000;
const POLL = { intervalMs: 25 } as const;

/**
 * An SMTP server that accepts connections but holds its greeting until `release()`: a relay
 * that has not answered yet. `connections` counts the clients waiting for it.
 */
async function startHoldingSmtpServer() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const state = { connections: 0, answered: false, received: [] as string[] };
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    onConnect(_session, callback) {
      state.connections += 1;
      void released.then(() => {
        state.answered = true;
        callback();
      });
    },
    onData(stream, session, callback) {
      stream.on('data', () => undefined);
      stream.on('end', () => {
        state.received.push(...session.envelope.rcptTo.map((recipient) => recipient.address));
        callback();
      });
    },
  });
  server.on('error', () => undefined); // a client that gives up mid-conversation is what this server is for (see api/testing/smtpTestServer.ts)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, state, release, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('account mail by job', () => {
  let instance: TestInstance;
  let relay: MailRelay;
  const apiLog = capturingLogger('api');
  const workerLog = capturingLogger('worker');

  before(async () => {
    instance = await startTestInstance({ logger: apiLog.logger });
    await completeSetup(instance);
    relay = await startMailRelay(instance, { logger: workerLog.logger });
  });
  after(async () => {
    await relay.close();
    await instance.close();
  });
  beforeEach(async () => {
    await resetRateLimits(instance);
    await saveSmtpRelay(instance, relay.smtp.port);
  });

  test('the job is enqueued with the signup and names only account, purpose and locale; the token is issued when the mail goes out', async () => {
    // Held by a relay that never answers, so the job is still there to look at.
    const holding = await startHoldingSmtpServer();
    try {
      await saveSmtpRelay(instance, holding.port);
      const account = newAccount();
      const response = await new TestClient(instance.baseUrl).post('/auth/signup', { ...account, locale: 'de' });
      assert.equal(response.status, 201, response.text);
      const userId = response.body.user.id as string;
      const job = (await accountMailJobs(instance)).find((row) => row.key === `account-mail:verify_email:${userId}`);
      assert.ok(job, 'the job exists as soon as the signup answered');
      assert.deepEqual(job.payload, { userId, purpose: 'verify_email', locale: 'de' });
      await waitFor(async () => (holding.state.connections > 0 ? true : undefined), MAIL_PATIENCE_MS, 'the worker to reach the relay', POLL);
      assert.equal(await EmailToken.count({ where: { userId } }), 1, 'issued by the job, right before sending');
    } finally {
      holding.release();
      await holding.close();
    }
  });

  test('the request does not wait for SMTP: signup answers while the relay has not yet answered, and the mail goes out once it does', async () => {
    const holding = await startHoldingSmtpServer();
    try {
      await saveSmtpRelay(instance, holding.port);
      const account = newAccount();
      const response = await new TestClient(instance.baseUrl).post('/auth/signup', account);
      assert.equal(response.status, 201, response.text);
      assert.equal(holding.state.answered, false, 'the answer came before the relay said a word');
      await waitFor(async () => (holding.state.connections > 0 ? true : undefined), MAIL_PATIENCE_MS, 'the worker to connect to the relay', POLL);
      const forgot = await new TestClient(instance.baseUrl).post('/auth/forgot-password', { email: 'someone@example.org' });
      assert.equal(forgot.status, 202, 'other requests answer too while the relay holds the worker');
      assert.equal(holding.state.answered, false);
      holding.release();
      await waitFor(async () => (holding.state.received.includes(account.email) ? true : undefined), MAIL_PATIENCE_MS, 'the mail to reach the relay', POLL);
    } finally {
      holding.release();
      await holding.close();
    }
  });

  test('a failing relay is retried until it takes the mail; the link appears in no job, record, audit entry or log line', async () => {
    await saveSmtpRelay(instance, await closedPort());
    const account = newAccount();
    const response = await new TestClient(instance.baseUrl).post('/auth/signup', account);
    assert.equal(response.status, 201, response.text);
    const userId = response.body.user.id as string;
    const failed = await waitFor(async () => (await MailOutboxEntry.findOne({ where: { recipient: account.email, status: 'failed' } })) ?? undefined, MAIL_PATIENCE_MS, 'the first attempt to fail', POLL);
    assert.match(failed.error ?? '', /ECONNREFUSED/);
    const waiting = await waitFor(async () => (await accountMailJobs(instance)).find((row) => row.key === `account-mail:verify_email:${userId}` && row.attempts === 1 && row.lastError !== null), MAIL_PATIENCE_MS, 'the job to wait for its retry', POLL);
    assert.match(waiting.lastError ?? '', /ECONNREFUSED/);

    // The relay comes back; Graphile retries after its backoff (e^1 s).
    await saveSmtpRelay(instance, relay.smtp.port);
    const link = await relay.link(account.email, 'verify-email');
    const token = new URL(link).searchParams.get('token')!;
    assert.equal((await new TestClient(instance.baseUrl).post('/auth/verify-email', { token })).status, 200);
    assert.equal((await User.findByPk(userId))!.status, 'ACTIVE');

    const records = await MailOutboxEntry.findAll({ where: { recipient: account.email }, order: [['id', 'ASC']], raw: true });
    assert.deepEqual(records.map((record) => record.status), ['failed', 'sent']);
    const stored = JSON.stringify({
      records,
      jobs: await accountMailJobs(instance),
      audit: await AuditEntry.findAll({ raw: true }),
    });
    for (const secret of [token, encodeURIComponent(token), 'verify-email?token']) {
      assert.ok(!stored.includes(secret), `${secret} is stored nowhere`);
      assert.ok(!apiLog.lines.join('\n').includes(secret), `${secret} is in no API log line`);
      assert.ok(!workerLog.lines.join('\n').includes(secret), `${secret} is in no worker log line`);
    }
    assert.ok(workerLog.lines.some((line) => line.includes('account mail sent')), 'the worker did log the delivery');
  });

  test('a relay removed before the job runs: recorded as not_configured, no token issued, nothing retried', async () => {
    const holding = await startHoldingSmtpServer();
    let userId = '';
    const account = newAccount();
    try {
      // The first job holds the worker, so the signup's job waits behind it.
      await saveSmtpRelay(instance, holding.port);
      const blocker = newAccount();
      assert.equal((await new TestClient(instance.baseUrl).post('/auth/signup', blocker)).status, 201);
      await waitFor(async () => (holding.state.connections > 0 ? true : undefined), MAIL_PATIENCE_MS, 'the worker to be held', POLL);
      const response = await new TestClient(instance.baseUrl).post('/auth/signup', account);
      assert.equal(response.status, 201, response.text);
      userId = response.body.user.id;
      await saveSmtpRelay(instance, null);
    } finally {
      holding.release();
      await holding.close();
    }
    const record = await waitFor(async () => (await MailOutboxEntry.findOne({ where: { recipient: account.email } })) ?? undefined, MAIL_PATIENCE_MS, 'the job to run', POLL);
    assert.equal(record.status, 'not_configured');
    assert.equal(await EmailToken.count({ where: { userId } }), 0);
    assert.equal((await accountMailJobs(instance)).filter((row) => row.key?.endsWith(userId)).length, 0, 'the job finished');
  });
});
