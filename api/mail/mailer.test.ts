/**
 * The mailer against a real database and a real SMTP server: delivery through the saved
 * settings or the deploy fallback, localized templates, transport failures that throw (so the
 * job retries) after recording them, and a delivery record that never holds a body or link.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { MailOutboxEntry, Setting } from '../models/index.ts';
import { capturingLogger, saveSmtpRelay } from '../testing/mailRelay.ts';
import { closedPort, decodedText, startSmtpTestServer, subjectOf, type SmtpTestServer } from '../testing/smtpTestServer.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { MailDeliveryError, Mailer } from './mailer.ts';
import { renderMail, type MailTemplate } from './templates.ts';

const verify = (displayName = 'Vera'): MailTemplate => ({ kind: 'verify_email', displayName, instanceName: 'Teich', link: 'https://wiki.example.org/verify?token=abc123' });
const reset: MailTemplate = { kind: 'reset_password', displayName: 'Rudi', instanceName: 'Teich', link: 'https://wiki.example.org/reset?token=def456' };
const relayAt = (port: number, from = 'Teich <wiki@example.org>') => ({ host: '127.0.0.1', port, secure: false, from });

describe('mailer', () => {
  let instance: TestInstance;
  let smtp: SmtpTestServer;
  let log: ReturnType<typeof capturingLogger>;
  let mailer: Mailer;

  before(async () => {
    instance = await startTestInstance();
    smtp = await startSmtpTestServer();
  });
  beforeEach(async () => {
    smtp.messages.length = 0;
    await MailOutboxEntry.destroy({ where: {} });
    await saveSmtpRelay(instance, null);
    log = capturingLogger('mailer');
    mailer = new Mailer({ fallback: null, logger: log.logger });
  });
  after(async () => {
    await smtp.close();
    await instance.close();
  });

  test('deliver sends through the given relay, in German for locale de, and records only recipient, kind and status', async () => {
    await mailer.deliver(relayAt(smtp.port), 'rudi@example.org', reset, 'de');
    assert.equal(smtp.messages.length, 1);
    const [mail] = smtp.messages;
    assert.deepEqual(mail!.to, ['rudi@example.org']);
    assert.equal(mail!.from, 'wiki@example.org');
    assert.equal(subjectOf(mail!.raw), 'Passwort zurücksetzen für Teich');
    const text = decodedText(mail!.raw);
    assert.match(text, /Hallo Rudi,/);
    assert.match(text, /https:\/\/wiki\.example\.org\/reset\?token=def456/);
    const rows = await MailOutboxEntry.findAll({ raw: true });
    assert.deepEqual(
      rows.map(({ recipient, kind, status, error }) => ({ recipient, kind, status, error })),
      [{ recipient: 'rudi@example.org', kind: 'reset_password', status: 'sent', error: null }],
    );
    assert.deepEqual(Object.keys(rows[0]!).sort(), ['createdAt', 'error', 'id', 'kind', 'recipient', 'status'], 'the record has no body or subject column');
    assert.doesNotMatch(log.lines.join('\n'), /def456/);
  });

  test('the English template is delivered for locale en', async () => {
    await mailer.deliver(relayAt(smtp.port), 'rudi@example.org', reset, 'en');
    assert.equal(subjectOf(smtp.messages[0]!.raw), 'Reset your password for Teich');
    assert.match(decodedText(smtp.messages[0]!.raw), /Hello Rudi,/);
  });

  test('a transport failure throws after recording it as failed with the error, without the link', async () => {
    await assert.rejects(mailer.deliver(relayAt(await closedPort()), 'vera@example.org', verify(), 'en'), (error: unknown) => {
      assert.ok(error instanceof MailDeliveryError);
      assert.match(error.message, /ECONNREFUSED/);
      return true;
    });
    const rows = await MailOutboxEntry.findAll({ raw: true });
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.status, 'failed');
    assert.match(rows[0]!.error ?? '', /ECONNREFUSED/);
    assert.doesNotMatch(JSON.stringify(rows), /abc123/);
    assert.match(log.lines.join('\n'), /mail delivery failed/);
    assert.doesNotMatch(log.lines.join('\n'), /abc123/);
  });

  test('recordNotConfigured keeps recipient, kind and status, and logs no more', async () => {
    await mailer.recordNotConfigured('vera@example.org', 'verify_email');
    const rows = await MailOutboxEntry.findAll({ raw: true });
    assert.deepEqual(rows.map(({ recipient, kind, status }) => [recipient, kind, status]), [['vera@example.org', 'verify_email', 'not_configured']]);
    assert.equal(log.lines.length, 1);
    assert.deepEqual(JSON.parse(log.lines[0]!).mail, { to: 'vera@example.org', kind: 'verify_email' });
  });

  test('the relay in use: none, the deploy-level fallback, then the settings saved by setup', async () => {
    assert.equal(await mailer.smtpSettings(), null);
    assert.equal(await mailer.isConfigured(), false);
    const withFallback = new Mailer({ fallback: relayAt(smtp.port, 'fallback@example.org'), logger: log.logger });
    assert.equal((await withFallback.smtpSettings())?.from, 'fallback@example.org');
    assert.equal(await withFallback.isConfigured(), true);
    await saveSmtpRelay(instance, smtp.port);
    assert.equal((await withFallback.smtpSettings())?.from, 'Testteich <wiki@example.org>', 'saved settings win over the fallback');
    assert.equal(await mailer.isConfigured(), true);
  });

  test('sendTestMail delivers the localized test mail and throws transport errors as they are', async () => {
    const settings = relayAt(smtp.port);
    await mailer.sendTestMail(settings, 'ops@example.org', 'en', 'Teich');
    assert.equal(subjectOf(smtp.messages[0]!.raw), 'Test e-mail from Teich');
    await assert.rejects(mailer.sendTestMail({ ...settings, port: await closedPort() }, 'ops@example.org', 'en', 'Teich'), /ECONNREFUSED/);
    assert.equal(await MailOutboxEntry.count(), 0, 'test mails bypass the outbox');
    assert.equal(await Setting.count({ where: { key: 'smtp.settings' } }), 0);
  });
});

describe('mail templates', () => {
  test('interpolated values are escaped in the HTML part only', () => {
    const mail = renderMail(verify('<b>Eve</b> & "Co"'), 'en');
    assert.match(mail.text, /Hello <b>Eve<\/b> & "Co",/);
    assert.ok(!mail.html.includes('<b>Eve</b>'));
    assert.match(mail.html, /&#60;b&#62;Eve&#60;\/b&#62; &#38; &#34;Co&#34;/);
  });

  test('every template has distinct de and en texts', () => {
    const templates: MailTemplate[] = [verify(), reset, { kind: 'smtp_test', instanceName: 'Teich' }];
    for (const template of templates) {
      const de = renderMail(template, 'de');
      const en = renderMail(template, 'en');
      assert.notEqual(de.subject, en.subject, template.kind);
      assert.notEqual(de.text, en.text, template.kind);
    }
  });
});
