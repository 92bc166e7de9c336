/**
 * The mailer against a real database and a real SMTP server: the outbox when SMTP is not
 * configured, delivery through the saved settings or the deploy fallback, localized
 * templates, and transport failures that never break the calling flow.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { pino } from 'pino';
import { MailOutboxEntry, Setting } from '../models/index.ts';
import { setSetting } from '../settings/instanceSettings.ts';
import { closedPort, decodedText, startSmtpTestServer, subjectOf, type SmtpTestServer } from '../testing/smtpTestServer.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { Mailer } from './mailer.ts';
import { renderMail, type MailTemplate } from './templates.ts';

const silent = pino({ level: 'silent' });
const verify = (displayName = 'Vera'): MailTemplate => ({ kind: 'verify_email', displayName, instanceName: 'Teich', link: 'https://wiki.example.org/verify?token=abc123' });
const reset: MailTemplate = { kind: 'reset_password', displayName: 'Rudi', instanceName: 'Teich', link: 'https://wiki.example.org/reset?token=def456' };

describe('mailer', () => {
  let instance: TestInstance;
  let smtp: SmtpTestServer;

  async function saveSmtpSettings(port: number | null): Promise<void> {
    await instance.services.sequelize.transaction((transaction) =>
      setSetting('smtp.settings', port === null ? null : { host: '127.0.0.1', port, secure: false, from: 'Teich <wiki@example.org>' }, { actorId: null, transaction }),
    );
  }

  before(async () => {
    instance = await startTestInstance();
    smtp = await startSmtpTestServer();
  });
  beforeEach(async () => {
    smtp.messages.length = 0;
    await MailOutboxEntry.destroy({ where: {} });
    await saveSmtpSettings(null);
  });
  after(async () => {
    await smtp.close();
    await instance.close();
  });

  test('without SMTP a mail is written to the outbox as not_configured', async () => {
    await instance.services.mailer.send('vera@example.org', verify(), 'en');
    const rows = await MailOutboxEntry.findAll();
    assert.equal(rows.length, 1);
    const [row] = rows;
    assert.equal(row!.recipient, 'vera@example.org');
    assert.equal(row!.kind, 'verify_email');
    assert.equal(row!.status, 'not_configured');
    assert.equal(row!.error, null);
    assert.equal(row!.subject, 'Please confirm your e-mail address for Teich');
    assert.match(row!.textBody, /Hello Vera,/);
    assert.match(row!.textBody, /https:\/\/wiki\.example\.org\/verify\?token=abc123/);
    assert.match(row!.htmlBody, /href="https:\/\/wiki\.example\.org\/verify\?token=abc123"/);
  });

  test('the outbox keeps the localized subject: de and en differ', async () => {
    await instance.services.mailer.send('vera@example.org', verify(), 'de');
    await instance.services.mailer.send('vera@example.org', verify(), 'en');
    const subjects = (await MailOutboxEntry.findAll({ order: [['id', 'ASC']] })).map((row) => row.subject);
    assert.deepEqual(subjects, ['Bitte bestätige deine E-Mail-Adresse für Teich', 'Please confirm your e-mail address for Teich']);
  });

  test('with saved SMTP settings the mail is delivered, in German for locale de', async () => {
    await saveSmtpSettings(smtp.port);
    await instance.services.mailer.send('rudi@example.org', reset, 'de');
    assert.equal(smtp.messages.length, 1);
    const [mail] = smtp.messages;
    assert.deepEqual(mail!.to, ['rudi@example.org']);
    assert.equal(mail!.from, 'wiki@example.org');
    assert.equal(subjectOf(mail!.raw), 'Passwort zurücksetzen für Teich');
    const text = decodedText(mail!.raw);
    assert.match(text, /Hallo Rudi,/);
    assert.match(text, /https:\/\/wiki\.example\.org\/reset\?token=def456/);
    const rows = await MailOutboxEntry.findAll();
    assert.deepEqual(rows.map((row) => [row.recipient, row.kind, row.status]), [['rudi@example.org', 'reset_password', 'sent']]);
  });

  test('the English template is delivered for locale en', async () => {
    await saveSmtpSettings(smtp.port);
    await instance.services.mailer.send('rudi@example.org', reset, 'en');
    assert.equal(smtp.messages.length, 1);
    assert.equal(subjectOf(smtp.messages[0]!.raw), 'Reset your password for Teich');
    assert.match(decodedText(smtp.messages[0]!.raw), /Hello Rudi,/);
  });

  test('a transport failure does not throw: the outbox records it as failed with the error', async () => {
    await saveSmtpSettings(await closedPort());
    await instance.services.mailer.send('vera@example.org', verify(), 'en');
    const rows = await MailOutboxEntry.findAll();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.status, 'failed');
    assert.match(rows[0]!.error ?? '', /ECONNREFUSED/);
    assert.match(rows[0]!.textBody, /token=abc123/, 'the body is kept so the mail can be followed up');
  });

  test('the deploy-level fallback is used when setup saved no SMTP settings', async () => {
    const mailer = new Mailer({ fallback: { host: '127.0.0.1', port: smtp.port, secure: false, from: 'fallback@example.org' }, logger: silent });
    await mailer.send('vera@example.org', verify(), 'en');
    assert.equal(smtp.messages.length, 1);
    assert.equal(smtp.messages[0]!.from, 'fallback@example.org');
    assert.equal((await MailOutboxEntry.findOne())?.status, 'sent');
  });

  test('saved SMTP settings win over the deploy-level fallback', async () => {
    const other = await startSmtpTestServer();
    try {
      await saveSmtpSettings(smtp.port);
      const mailer = new Mailer({ fallback: { host: '127.0.0.1', port: other.port, secure: false, from: 'fallback@example.org' }, logger: silent });
      await mailer.send('vera@example.org', verify(), 'en');
      assert.equal(smtp.messages.length, 1);
      assert.equal(other.messages.length, 0);
    } finally {
      await other.close();
    }
  });

  test('sendTestMail delivers the localized test mail and throws transport errors as they are', async () => {
    const settings = { host: '127.0.0.1', port: smtp.port, secure: false, from: 'wiki@example.org' };
    await instance.services.mailer.sendTestMail(settings, 'ops@example.org', 'en', 'Teich');
    assert.equal(subjectOf(smtp.messages[0]!.raw), 'Test e-mail from Teich');
    await assert.rejects(instance.services.mailer.sendTestMail({ ...settings, port: await closedPort() }, 'ops@example.org', 'en', 'Teich'), /ECONNREFUSED/);
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
