/**
 * The notification digest against a real database and a real SMTP server: who is due under
 * which cadence (hourly, daily, off), one mail per user with every pending entry grouped per
 * pond and page, in English and German, the List-Unsubscribe headers and visible link, entries
 * the user can no longer read dropped from the mail but marked handled, sent entries marked
 * mailed and still unread, a failing recipient that neither stops the others nor loses its
 * entries, a relay refusing everything, an entry folded into while its mail is sent, batches, the run lock and an instance without a relay.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { SMTPServer } from 'smtp-server';
import { verifyUnsubscribeToken } from '../auth/unsubscribeTokens.ts';
import { createLogger } from '../logger.ts';
import { Mailer } from '../mail/mailer.ts';
import { MailOutboxEntry, User, type Page, type Pond } from '../models/index.ts';
import { setSetting } from '../settings/instanceSettings.ts';
import { seedGrant, seedPage, seedSharedPond } from '../testing/accessFixtures.ts';
import { completeSetup } from '../testing/fixtures.ts';
import { saveSmtpRelay } from '../testing/mailRelay.ts';
import { mailParts, startSmtpTestServer, subjectOf, type MailParts, type SmtpTestServer } from '../testing/smtpTestServer.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { RelayFailingError, runNotificationDigest, type DigestDependencies } from './notificationDigest.ts';

type NotificationType = 'page_changed' | 'comment' | 'mentioned';

interface NotifyOptions {
  minutesAgo: number;
  actors?: string[];
  changeCount?: number;
  commentCount?: number;
  versionLabel?: string;
  commentExcerpt?: string;
}

describe('notification digest', () => {
  let instance: TestInstance;
  let smtp: SmtpTestServer;
  let dependencies: DigestDependencies;
  let owner: User;
  let counter = 0;

  before(async () => {
    instance = await startTestInstance();
    await completeSetup(instance);
    smtp = await startSmtpTestServer({ rejectRecipients: (address) => address.startsWith('bounce') });
    await saveSmtpRelay(instance, smtp.port);
    const logger = createLogger('silent', 'worker');
    const { sequelize, config } = instance.services;
    dependencies = { sequelize, mailer: new Mailer({ fallback: null, logger }), baseUrl: config.baseUrl, sessionSecret: config.sessionSecret, logger };
    owner = await person({ displayName: 'Owner' });
  });
  beforeEach(async () => {
    smtp.messages.length = 0;
    await instance.services.sequelize.query('DELETE FROM notifications');
  });
  after(async () => {
    await smtp.close();
    await instance.close();
  });

  async function person(options: { displayName?: string; locale?: 'de' | 'en'; frequency?: 'hourly' | 'daily' | 'off'; status?: 'ACTIVE' | 'disabled'; emailPrefix?: string } = {}): Promise<User> {
    counter += 1;
    return User.create({
      username: `digest${counter}`,
      email: `${options.emailPrefix ?? 'digest'}${counter}@example.org`,
      displayName: options.displayName ?? `Person ${counter}`,
      locale: options.locale ?? null,
      status: options.status ?? 'ACTIVE',
      passwordHash: null,
      emailVerifiedAt: new Date(),
      digestFrequency: options.frequency ?? 'hourly',
    });
  }

  /** A pond of `owner` that each of `readers` may read. */
  async function pondFor(readers: User[], name?: string): Promise<Pond> {
    const pond = await seedSharedPond(owner.id, name);
    for (const reader of readers) await seedGrant(pond.id, { subject: { type: 'user', id: reader.id }, role: 'reader' });
    return pond;
  }

  /** A notification row as the fan-out writes it (payload per the contract). */
  async function notify(user: User, pond: Pond, page: Page, type: NotificationType, options: NotifyOptions): Promise<string> {
    const payload = {
      pondName: pond.name,
      pondSlug: pond.slug,
      pageTitle: page.title,
      pageSlug: page.slug,
      actors: (options.actors ?? []).map((displayName, index) => ({ id: `00000000-0000-4000-8000-00000000000${index}`, displayName })),
      changeCount: options.changeCount ?? (type === 'page_changed' ? 1 : 0),
      commentCount: options.commentCount ?? (type === 'comment' ? 1 : 0),
      ...(options.versionLabel ? { versionLabel: options.versionLabel } : {}),
      ...(options.commentExcerpt ? { commentId: '00000000-0000-4000-8000-0000000000aa', commentExcerpt: options.commentExcerpt } : {}),
    };
    const [row] = await instance.services.sequelize.query<{ id: string }>(
      `INSERT INTO notifications (user_id, type, pond_id, page_id, payload, created_at, updated_at)
       VALUES (:userId, :type, :pondId, :pageId, CAST(:payload AS jsonb), now() - make_interval(mins => :minutesAgo), now() - make_interval(mins => :minutesAgo))
       RETURNING id`,
      { replacements: { userId: user.id, type, pondId: pond.id, pageId: page.id, payload: JSON.stringify(payload), minutesAgo: options.minutesAgo }, type: QueryTypes.SELECT },
    );
    return row!.id;
  }

  async function states(ids: string[]): Promise<Map<string, { readAt: Date | null; mailedAt: Date | null }>> {
    const rows = await instance.services.sequelize.query<{ id: string; readAt: Date | null; mailedAt: Date | null }>(
      'SELECT id, read_at AS "readAt", mailed_at AS "mailedAt" FROM notifications WHERE id IN (:ids)',
      { replacements: { ids }, type: QueryTypes.SELECT },
    );
    return new Map(rows.map((row) => [row.id, { readAt: row.readAt, mailedAt: row.mailedAt }]));
  }

  async function mailedIds(ids: string[]): Promise<string[]> {
    const found = await states(ids);
    return ids.filter((id) => found.get(id)?.mailedAt);
  }

  function mailsTo(user: User): (MailParts & { subject: string })[] {
    return smtp.messages.filter((message) => message.to.includes(user.email)).map((message) => ({ ...mailParts(message.raw), subject: subjectOf(message.raw) }));
  }

  /** Fails unless each text occurs in `text`, in this order. */
  function assertInOrder(text: string, expected: string[]): void {
    let from = 0;
    for (const part of expected) {
      const at = text.indexOf(part, from);
      assert.ok(at >= 0, `expected ${JSON.stringify(part)} after position ${from} in:\n${text}`);
      from = at + part.length;
    }
  }

  test('cadence: hourly after an hour, daily after a day, off and disabled never; a due user gets every pending entry in one mail', async () => {
    const hourlyDue = await person({ frequency: 'hourly' });
    const hourlyNotYet = await person({ frequency: 'hourly' });
    const dailyNotYet = await person({ frequency: 'daily' });
    const dailyDue = await person({ frequency: 'daily' });
    const off = await person({ frequency: 'off' });
    const disabled = await person({ frequency: 'hourly', status: 'disabled' });
    const everyone = [hourlyDue, hourlyNotYet, dailyNotYet, dailyDue, off, disabled];
    const pond = await pondFor(everyone, 'Cadence pond');
    const [older, fresh] = [await seedPage(pond.id, 'Older page'), await seedPage(pond.id, 'Fresh page')];

    const dueOld = await notify(hourlyDue, pond, older, 'page_changed', { minutesAgo: 61 });
    const dueFresh = await notify(hourlyDue, pond, fresh, 'comment', { minutesAgo: 1 });
    const notYet = await notify(hourlyNotYet, pond, older, 'page_changed', { minutesAgo: 59 });
    const dailyEarly = await notify(dailyNotYet, pond, older, 'page_changed', { minutesAgo: 23 * 60 });
    const dailyLate = await notify(dailyDue, pond, older, 'page_changed', { minutesAgo: 25 * 60 });
    const never = await notify(off, pond, older, 'page_changed', { minutesAgo: 3 * 24 * 60 });
    const disabledRow = await notify(disabled, pond, older, 'page_changed', { minutesAgo: 3 * 60 });

    const outcome = await runNotificationDigest(dependencies);
    assert.equal(outcome.skipped, null);
    assert.deepEqual([outcome.users, outcome.mailsSent, outcome.entriesMailed], [2, 2, 3]);
    assert.equal(mailsTo(hourlyDue).length, 1, 'one mail for the due hourly user');
    assertInOrder(mailsTo(hourlyDue)[0]!.text!, ['Fresh page', 'Older page']);
    assert.equal(mailsTo(dailyDue).length, 1);
    for (const user of [hourlyNotYet, dailyNotYet, off, disabled]) assert.equal(mailsTo(user).length, 0, `${user.username} gets nothing`);
    const all = [dueOld, dueFresh, notYet, dailyEarly, dailyLate, never, disabledRow];
    assert.deepEqual(await mailedIds(all), [dueOld, dueFresh, dailyLate]);
    for (const [, state] of await states([dueOld, dueFresh, dailyLate])) assert.equal(state.readAt, null, 'mailed entries stay unread');

    // Nothing is mailed twice; the hourly user who was not due is, a minute later.
    smtp.messages.length = 0;
    await runNotificationDigest(dependencies);
    assert.equal(smtp.messages.length, 0);
    await instance.services.sequelize.query(`UPDATE notifications SET created_at = now() - interval '61 minutes' WHERE id = :id`, { replacements: { id: notYet } });
    await runNotificationDigest(dependencies);
    assert.equal(mailsTo(hourlyNotYet).length, 1);
    assert.equal(smtp.messages.length, 1);
  });

  test('the mail groups entries per pond, then per page, names actors and counts, links the pages and carries the unsubscribe headers (English)', async () => {
    const reader = await person({ displayName: 'Rita', locale: 'en' });
    const beta = await pondFor([reader], 'Beta pond');
    const alpha = await pondFor([reader], 'Alpha pond');
    const zebra = await seedPage(alpha.id, 'Zebra page');
    const apple = await seedPage(alpha.id, 'Apple page');
    const middle = await seedPage(beta.id, 'Middle page');
    await notify(reader, alpha, zebra, 'page_changed', { minutesAgo: 120, actors: ['Ada', 'Bob'], changeCount: 3, versionLabel: 'Release 1' });
    await notify(reader, alpha, zebra, 'comment', { minutesAgo: 90, actors: ['Carla'], commentCount: 2, commentExcerpt: 'Looks <b>good</b> & done' });
    await notify(reader, alpha, apple, 'mentioned', { minutesAgo: 80, actors: ['Dan'] });
    await notify(reader, beta, middle, 'page_changed', { minutesAgo: 70, actors: [] });
    await notify(reader, beta, middle, 'comment', { minutesAgo: 70, actors: ['Eve', 'Finn', 'Gus', 'Hal', 'Ida'], commentCount: 7 });

    await runNotificationDigest(dependencies);
    const [mail] = mailsTo(reader);
    assert.ok(mail, 'one mail');
    assert.equal(mail.subject, 'News on 3 pages in Testteich');
    const base = instance.baseUrl;
    const url = (pond: Pond, page: Page) => `${base}/${pond.slug}/${page.slug}`;
    assertInOrder(mail.text!, [
      'Hello Rita,',
      'Alpha pond',
      'Apple page',
      url(alpha, apple),
      '- You were mentioned by Dan',
      'Zebra page',
      url(alpha, zebra),
      '- Changed 3 times by Ada and Bob (latest version: “Release 1”)',
      '- 2 new comments by Carla',
      '“Looks <b>good</b> & done”',
      'Beta pond',
      'Middle page',
      url(beta, middle),
      '- Changed once\n',
      '- 7 new comments by Eve, Finn, Gus and 2 more',
    ]);
    const html = mail.html!;
    assertInOrder(html, ['Hello Rita,', '>Alpha pond</h2>', `href="${url(alpha, apple)}"`, '>Apple page</a>', 'You were mentioned by Dan', `href="${url(alpha, zebra)}"`, '>Zebra page</a>', 'Changed 3 times by Ada and Bob', '>Beta pond</h2>', '>Middle page</a>']);
    assert.ok(html.includes('Looks &#60;b&#62;good&#60;/b&#62; &#38; done'), 'the excerpt is escaped in the HTML part');
    assert.ok(!html.includes('<b>good</b>'));

    const header = mail.headers.get('list-unsubscribe');
    assert.match(header ?? '', /^<http:\/\/127\.0\.0\.1:\d+\/api\/v1\/unsubscribe\?token=[^>]+>$/);
    assert.equal(mail.headers.get('list-unsubscribe-post'), 'List-Unsubscribe=One-Click');
    const unsubscribeUrl = header!.slice(1, -1);
    assert.ok(mail.text!.includes(`Stop these e-mails: ${unsubscribeUrl}`), 'the text part shows the same link');
    assert.ok(html.includes(`href="${unsubscribeUrl.replaceAll('&', '&#38;')}"`), 'the HTML part links it');
    assert.equal(verifyUnsubscribeToken(instance.services.config.sessionSecret, new URL(unsubscribeUrl).searchParams.get('token')), reader.id);
    assert.ok(mail.text!.includes(`${base}/settings`));
  });

  test('German for a German account, and the instance default for an account without a language', async () => {
    const german = await person({ displayName: 'Gerda', locale: 'de' });
    const undecided = await person({ displayName: 'Uli' });
    const pond = await pondFor([german, undecided], 'Dorfteich');
    const page = await seedPage(pond.id, 'Satzung');
    await notify(german, pond, page, 'page_changed', { minutesAgo: 61, actors: ['Ada', 'Bob'], changeCount: 2 });
    await notify(german, pond, page, 'comment', { minutesAgo: 61, actors: ['Carla'], commentCount: 1 });
    await notify(undecided, pond, page, 'mentioned', { minutesAgo: 61, actors: ['Ada'] });
    await instance.services.sequelize.transaction((transaction) => setSetting('instance.defaultLocale', 'de', { actorId: null, transaction }));
    try {
      await runNotificationDigest(dependencies);
    } finally {
      await instance.services.sequelize.transaction((transaction) => setSetting('instance.defaultLocale', 'en', { actorId: null, transaction }));
    }
    const [mail] = mailsTo(german);
    assert.equal(mail?.subject, 'Neues auf 1 Seite in Testteich');
    assertInOrder(mail!.text!, ['Hallo Gerda,', 'hier ist, was es Neues für dich gibt:', 'Dorfteich', 'Satzung', '- 2-mal geändert von Ada und Bob', '- 1 neuer Kommentar von Carla', 'höchstens einmal pro Stunde', 'Keine solchen E-Mails mehr: http']);
    assert.match(mail!.html!, /<html lang="de">/);
    assert.match(mailsTo(undecided)[0]?.text ?? '', /Du wurdest erwähnt von Ada/);
  });

  test('entries the user can no longer read (denied, trashed page, trashed pond) are left out but marked handled; sent ones stay unread', async () => {
    const reader = await person();
    const onlyDenied = await person();
    const pond = await pondFor([reader, onlyDenied], 'Mixed pond');
    const readable = await seedPage(pond.id, 'Readable page');
    const denied = await seedPage(pond.id, 'Secret page');
    const trashed = await seedPage(pond.id, 'Binned page', { trashed: true });
    for (const user of [reader, onlyDenied]) await seedGrant(pond.id, { subject: { type: 'user', id: user.id }, role: 'reader', scope: { type: 'page', id: denied.id }, effect: 'deny' });
    const gonePond = await pondFor([reader], 'Gone pond');
    const inGone = await seedPage(gonePond.id, 'Page in a trashed pond');
    await instance.services.sequelize.query('UPDATE ponds SET trashed_at = now() WHERE id = :id', { replacements: { id: gonePond.id } });

    const kept = await notify(reader, pond, readable, 'page_changed', { minutesAgo: 61 });
    const droppedIds = [
      await notify(reader, pond, denied, 'page_changed', { minutesAgo: 61 }),
      await notify(reader, pond, trashed, 'comment', { minutesAgo: 61, commentExcerpt: 'binned words' }),
      await notify(reader, gonePond, inGone, 'page_changed', { minutesAgo: 61 }),
    ];
    const onlyDeniedRow = await notify(onlyDenied, pond, denied, 'page_changed', { minutesAgo: 120 });

    const outcome = await runNotificationDigest(dependencies);
    assert.deepEqual([outcome.mailsSent, outcome.nothingReadable, outcome.entriesMailed, outcome.entriesDropped], [1, 1, 1, 4]);
    const [mail] = mailsTo(reader);
    assert.ok(mail);
    assert.equal(mail.subject, 'News on 1 page in Testteich');
    const everything = `${mail.subject}\n${mail.text}\n${mail.html}`;
    assert.ok(everything.includes('Readable page'));
    for (const hidden of ['Secret page', denied.slug, 'Binned page', 'binned words', 'Gone pond', 'Page in a trashed pond']) assert.ok(!everything.includes(hidden), `${hidden} is not in the mail`);
    assert.equal(mailsTo(onlyDenied).length, 0, 'nothing readable: no mail');

    const all = [kept, ...droppedIds, onlyDeniedRow];
    assert.deepEqual(await mailedIds(all), all, 'sent and dropped entries alike are marked handled');
    for (const [, state] of await states(all)) assert.equal(state.readAt, null);
    smtp.messages.length = 0;
    await runNotificationDigest(dependencies);
    assert.equal(smtp.messages.length, 0, 'handled entries are not looked at again');
  });

  test('a recipient the relay refuses keeps their entries for the next run and does not stop the others', async () => {
    const bouncing = await person({ emailPrefix: 'bounce' });
    const fine = await person();
    const pond = await pondFor([bouncing, fine], 'Relay pond');
    const page = await seedPage(pond.id, 'Relayed page');
    const bounced = await notify(bouncing, pond, page, 'page_changed', { minutesAgo: 61 });
    const delivered = await notify(fine, pond, page, 'page_changed', { minutesAgo: 61 });
    await MailOutboxEntry.destroy({ where: {} });

    const outcome = await runNotificationDigest(dependencies);
    assert.deepEqual([outcome.mailsSent, outcome.mailsFailed], [1, 1]);
    assert.equal(mailsTo(fine).length, 1);
    assert.deepEqual(await mailedIds([bounced, delivered]), [delivered]);
    const records = await MailOutboxEntry.findAll({ order: [['id', 'ASC']] });
    assert.deepEqual(records.map((record) => [record.recipient, record.kind, record.status]).sort(), [
      [bouncing.email, 'notification_digest', 'failed'],
      [fine.email, 'notification_digest', 'sent'],
    ]);
    const again = await runNotificationDigest(dependencies);
    assert.deepEqual([again.users, again.mailsFailed], [1, 1], 'the refused entries are tried again');
  });

  test('a relay that refuses mail after mail stops the run: the job fails (to be retried), nothing unsent is marked', async () => {
    const people = [];
    for (let i = 0; i < 22; i += 1) people.push(await person({ emailPrefix: 'bounce' }));
    const pond = await pondFor(people, 'Refusing pond');
    const page = await seedPage(pond.id, 'Refused page');
    const ids = [];
    for (const user of people) ids.push(await notify(user, pond, page, 'page_changed', { minutesAgo: 61 }));
    await MailOutboxEntry.destroy({ where: {} });
    await assert.rejects(runNotificationDigest(dependencies, { usersPerBatch: 5 }), RelayFailingError);
    assert.equal(await MailOutboxEntry.count({ where: { status: 'failed' } }), 20, 'it stops after 20 refusals in a row, not after all 22');
    assert.deepEqual(await mailedIds(ids), []);
  });

  test('an entry that gains an event while its mail is on the way is not marked: the newer event goes out with the next digest', async () => {
    const user = await person();
    const pond = await pondFor([user], 'Busy pond');
    const page = await seedPage(pond.id, 'Busy page');
    const id = await notify(user, pond, page, 'page_changed', { minutesAgo: 61, changeCount: 1 });
    // A relay that, while it takes the mail, lets a fold happen (as notifyPageEvent's ON CONFLICT … DO UPDATE would).
    const folding = new SMTPServer({
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, _session, callback) {
        stream.on('data', () => undefined);
        stream.on('end', () => {
          instance.services.sequelize
            .query(`UPDATE notifications SET payload = jsonb_set(payload, '{changeCount}', '2'), updated_at = now() WHERE id = :id`, { replacements: { id } })
            .then(() => callback(), callback);
        });
      },
    });
    folding.on('error', () => undefined); // a client's reset mid-transaction is no failure here (see api/testing/smtpTestServer.ts)
    await new Promise<void>((resolve) => folding.listen(0, '127.0.0.1', resolve));
    await saveSmtpRelay(instance, (folding.server.address() as AddressInfo).port);
    try {
      assert.equal((await runNotificationDigest(dependencies)).mailsSent, 1);
    } finally {
      await saveSmtpRelay(instance, smtp.port);
      await new Promise<void>((resolve) => folding.close(() => resolve()));
    }
    assert.deepEqual(await mailedIds([id]), [], 'the folded row stays pending');
    await runNotificationDigest(dependencies);
    assert.match(mailsTo(user)[0]?.text ?? '', /Changed 2 times/);
    assert.deepEqual(await mailedIds([id]), [id]);
  });

  test('users are read in batches: every due user of several batches gets their mail', async () => {
    const people = [];
    for (let i = 0; i < 5; i += 1) people.push(await person());
    const pond = await pondFor(people, 'Batch pond');
    const page = await seedPage(pond.id, 'Batched page');
    for (const user of people) await notify(user, pond, page, 'page_changed', { minutesAgo: 61 });
    const outcome = await runNotificationDigest(dependencies, { usersPerBatch: 2 });
    assert.deepEqual([outcome.users, outcome.mailsSent], [5, 5]);
    for (const user of people) assert.equal(mailsTo(user).length, 1);
  });

  test('one run at a time: a run that finds the run lock taken ends without looking at anyone', async () => {
    const user = await person();
    const pond = await pondFor([user], 'Locked pond');
    const id = await notify(user, pond, await seedPage(pond.id, 'Locked page'), 'page_changed', { minutesAgo: 61 });
    const { sequelize } = instance.services;
    const outcome = await sequelize.transaction(async (transaction) => {
      await sequelize.query(`SELECT pg_advisory_xact_lock(hashtext('job-run:notification-digest'))`, { transaction });
      return runNotificationDigest(dependencies);
    });
    assert.equal(outcome.skipped, 'already_running');
    assert.deepEqual(await mailedIds([id]), []);
    assert.equal((await runNotificationDigest(dependencies)).mailsSent, 1, 'the next run does the work');
  });

  test('without a mail relay nothing is sent and nothing is marked', async () => {
    const user = await person();
    const pond = await pondFor([user], 'Quiet pond');
    const id = await notify(user, pond, await seedPage(pond.id, 'Quiet page'), 'page_changed', { minutesAgo: 61 });
    await saveSmtpRelay(instance, null);
    try {
      assert.equal((await runNotificationDigest(dependencies)).skipped, 'not_configured');
    } finally {
      await saveSmtpRelay(instance, smtp.port);
    }
    assert.deepEqual(await mailedIds([id]), []);
    assert.equal(smtp.messages.length, 0);
  });
});
