/**
 * What the collaboration server does with documents besides relaying them: content from
 * creation, derived data on store, automatic versions, restores through the live document,
 * session rows, and maintenance.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { documentToHtml, documentToMarkdown, markdownToDocument, replaceYDocContent, yDocToDocument } from '../content-pipeline/index.ts';
import { seedPage } from '../api/testing/accessFixtures.ts';
import { editorPool, openEditor, useCollabCast, waitFor, type CollabCast } from './testing/collabHarness.ts';

async function rows<T extends object>(cast: CollabCast, sql: string, replacements: Record<string, unknown>): Promise<T[]> {
  return cast.instance.services.sequelize.query<T>(sql, { replacements, type: QueryTypes.SELECT });
}

describe('collaborative documents', () => {
  const cast = useCollabCast({ storeDebounceMs: 30, heartbeatIntervalMs: 100 });
  const { open, closeAll } = editorPool(cast);

  test('a page created with Markdown opens in the editor with that content', async (t) => {
    t.after(closeAll);
    const pond = await cast.seedTeamPond();
    const created = await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 'From Markdown', markdown: '# Heading\n\nSome **bold** text.' });
    assert.equal(created.status, 201, created.text);
    const editor = await open(cast.reader.client, created.body.id);
    assert.deepEqual(yDocToDocument(editor.ydoc), markdownToDocument('# Heading\n\nSome **bold** text.'));
  });

  test('a store renders caches and outline as the pipeline does, and keeps links and phantoms in step', async (t) => {
    t.after(closeAll);
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Linking page');
    const editor = await open(cast.editor.client, page.id);
    const markdown = '# Plan\n\nSee [[missing]] for details.\n\n## Later';
    replaceYDocContent(editor.ydoc, markdownToDocument(markdown));
    await editor.allSynced();
    const document = yDocToDocument(editor.ydoc);
    await waitFor(async () => (await rows(cast, `SELECT 1 FROM page_contents WHERE page_id = :id AND markdown LIKE '%missing%'`, { id: page.id })).length > 0, 5000, 'no store');
    const [contents] = await rows<{ html: string; markdown: string; outline: { text: string; level: number }[] }>(cast, `SELECT html, markdown, outline FROM page_contents WHERE page_id = :id`, { id: page.id });
    assert.equal(contents!.markdown, documentToMarkdown(document));
    assert.equal(contents!.html, documentToHtml(document));
    assert.deepEqual(contents!.outline.map((entry) => [entry.level, entry.text]), [[1, 'Plan'], [2, 'Later']]);

    const phantoms = await cast.editor.client.get(`/ponds/${pond.id}/phantom-links`);
    assert.equal(phantoms.status, 200, phantoms.text);
    assert.deepEqual(phantoms.body.items.map((item: { targetSlug: string }) => item.targetSlug), ['missing']);

    const target = await cast.editor.client.post(`/ponds/${pond.id}/pages`, { title: 'Missing', slug: 'missing' });
    assert.equal(target.status, 201, target.text);
    const backlinks = await cast.editor.client.get(`/pages/${target.body.id}/backlinks`);
    assert.deepEqual(backlinks.body.items.map((item: { page: { id: string } }) => item.page.id), [page.id]);
    assert.deepEqual((await cast.editor.client.get(`/ponds/${pond.id}/phantom-links`)).body.items, []);
  });

  test('the last participant leaving takes an automatic version naming the contributors', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Versioned');
    const first = await openEditor(cast, cast.editor.client, page.id);
    const second = await openEditor(cast, cast.owner.client, page.id);
    first.type('one');
    second.type('two');
    await Promise.all([first.allSynced(), second.allSynced()]);
    first.destroy();
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal((await cast.editor.client.get(`/pages/${page.id}/versions`)).body.items.length, 0, 'a participant is still there');
    second.destroy();
    await waitFor(async () => (await cast.editor.client.get(`/pages/${page.id}/versions`)).body.items.length === 1, 5000, 'no automatic version');
    const [version] = (await cast.editor.client.get(`/pages/${page.id}/versions`)).body.items;
    assert.equal(version.trigger, 'auto');
    assert.equal(version.createdBy, null);
    assert.deepEqual(version.contributors.map((person: { id: string }) => person.id).sort(), [cast.editor.user.id, cast.owner.user.id].sort());
    const preview = await cast.editor.client.get(`/versions/${version.id}`);
    assert.match(preview.body.markdown, /one|two/);
  });

  test('the last participant leaving after edits queues the compaction of the page\'s log, which waits a few seconds; a page only read queues nothing', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Compacted later');
    const jobKey = `page-log-compaction:${page.id}`;
    const queued = () => rows<{ task: string; waits: boolean }>(cast, `SELECT task_identifier AS task, run_at > now() + interval '5 seconds' AS waits FROM graphile_worker.jobs WHERE key = :jobKey`, { jobKey });
    const first = await openEditor(cast, cast.editor.client, page.id);
    const second = await openEditor(cast, cast.owner.client, page.id);
    first.type('a');
    await first.allSynced();
    first.destroy();
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(await queued(), [], 'a participant is still there');
    second.destroy();
    await waitFor(async () => (await queued()).length === 1, 5000, 'no compaction job queued');
    assert.deepEqual(await queued(), [{ task: 'page-log-compaction', waits: true }]);

    // A page that was only read kept its log: nothing to merge.
    const readOnly = await seedPage(pond.id, 'Only looked at');
    const looker = await openEditor(cast, cast.editor.client, readOnly.id);
    looker.destroy();
    await waitFor(() => !cast.collab.runtime.documents.has(readOnly.id), 5000, 'the page was not unloaded');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(await rows(cast, `SELECT key FROM graphile_worker.jobs WHERE key = :jobKey`, { jobKey: `page-log-compaction:${readOnly.id}` }), []);
  });

  test('a session without edits takes no version', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Only read');
    const reader = await openEditor(cast, cast.reader.client, page.id);
    const writer = await openEditor(cast, cast.editor.client, page.id);
    reader.destroy();
    writer.destroy();
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await cast.editor.client.get(`/pages/${page.id}/versions`)).body.items.length, 0);
  });

  test('restoring a version converges every open editor on it, and history stays append-only', async (t) => {
    t.after(closeAll);
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Restored');
    const a = await open(cast.editor.client, page.id);
    const b = await open(cast.owner.client, page.id);
    replaceYDocContent(a.ydoc, markdownToDocument('first state'));
    await a.allSynced();
    const saved = await cast.editor.client.post(`/pages/${page.id}/versions`, { label: 'Good' });
    assert.equal(saved.status, 201, saved.text);
    replaceYDocContent(b.ydoc, markdownToDocument('second state'));
    await b.allSynced();
    await waitFor(() => a.text() === 'second state', 5000, 'a did not see the second state');
    const restored = await cast.owner.client.post(`/versions/${saved.body.id}/restore`);
    assert.equal(restored.status, 200, restored.text);
    await waitFor(() => a.text() === 'first state' && b.text() === 'first state', 5000, 'open editors did not converge on the restored version');
    // Typing continues on top of the restored state.
    a.type('!');
    await a.allSynced();
    await waitFor(() => b.text() === 'first state!', 5000, 'edit after restore did not propagate');
    const triggers = (await cast.editor.client.get(`/pages/${page.id}/versions`)).body.items.map((item: { trigger: string }) => item.trigger);
    assert.deepEqual(triggers, ['pre_restore', 'MANUAL']);
  });

  test('each connection has a session row that the heartbeat keeps fresh; it goes on disconnect', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Sessions');
    const editor = await openEditor(cast, cast.editor.client, page.id);
    const sessionRows = () => rows<{ mode: string; user_id: string; heartbeat_at: Date }>(cast, `SELECT mode, user_id, heartbeat_at FROM collab_sessions WHERE page_id = :id`, { id: page.id });
    await waitFor(async () => (await sessionRows()).length === 1, 2000, 'no session row');
    const [before] = await sessionRows();
    assert.deepEqual([before!.mode, before!.user_id], ['rw', cast.editor.user.id]);
    await waitFor(async () => (await sessionRows())[0]!.heartbeat_at > before!.heartbeat_at, 2000, 'heartbeat did not advance');
    editor.destroy();
    await waitFor(async () => (await sessionRows()).length === 0, 2000, 'session row left behind');
  });

  test('sessions of a crashed instance age out, and their page still gets its "last participant left" version', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Crashed session');
    const editor = await openEditor(cast, cast.editor.client, page.id);
    editor.type('typed before the crash');
    await editor.allSynced();
    const sequelize = cast.instance.services.sequelize;
    const fresh = await seedPage(pond.id, 'Recently stale');
    await sequelize.query(`INSERT INTO collab_sessions (id, page_id, user_id, instance_id, mode, heartbeat_at) VALUES (gen_random_uuid(), :id, NULL, 'other', 'ro', now() - interval '30 seconds')`, { replacements: { id: fresh.id } });
    editor.destroy();
    await waitFor(() => !cast.collab.runtime.documents.has(page.id), 3000, 'document still open');
    // What a kill -9 leaves behind instead of a clean leave: edits without a version, and a
    // session row that stopped beating.
    await sequelize.query(`DELETE FROM page_versions WHERE page_id = :id`, { replacements: { id: page.id } });
    await sequelize.query(`INSERT INTO page_contributors (page_id, user_id) VALUES (:id, :userId) ON CONFLICT DO NOTHING`, { replacements: { id: page.id, userId: cast.editor.user.id } });
    await sequelize.query(`INSERT INTO collab_sessions (id, page_id, user_id, instance_id, mode, heartbeat_at) VALUES (gen_random_uuid(), :id, :userId, 'crashed', 'rw', now() - interval '5 minutes')`, { replacements: { id: page.id, userId: cast.editor.user.id } });
    await cast.collab.runtime.sessions.beat();
    const versions = (await cast.editor.client.get(`/pages/${page.id}/versions`)).body.items;
    assert.equal(versions.length, 1);
    assert.equal(versions[0].trigger, 'auto');
    assert.deepEqual(versions[0].contributors.map((person: { id: string }) => person.id), [cast.editor.user.id]);
    const remaining = await rows<{ page_id: string }>(cast, `SELECT page_id FROM collab_sessions WHERE instance_id IN ('crashed', 'other')`, {});
    assert.deepEqual(remaining.map((row) => row.page_id), [fresh.id], 'only the stale session is reaped');
  });

  test('maintenance closes every socket and refuses new ones until it ends', async (t) => {
    t.after(closeAll);
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Maintenance');
    const editor = await open(cast.editor.client, page.id);
    await cast.instance.services.sequelize.query(`SELECT pg_notify('backup_maintenance', 'start')`);
    await waitFor(() => editor.seen.closed, 3000, 'socket stayed open');
    const refused = await fetch(`${cast.instance.baseUrl}/collab`, { headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==' } }).catch((error: Error) => error);
    assert.ok(refused instanceof Error || refused.status === 503, 'upgrade during maintenance must be refused');
    assert.equal(cast.collab.runtime.maintenance.active, true);
    await cast.instance.services.sequelize.query(`SELECT pg_notify('backup_maintenance', '{"state":"end"}')`);
    await waitFor(() => cast.collab.runtime.maintenance.active === false, 2000, 'maintenance did not end');
    editor.type('back');
    await editor.allSynced();
  });
});

describe('automatic versions while editing', () => {
  const cast = useCollabCast({ snapshotActiveMs: 150 });

  test('a version is taken every snapshotActiveMs of active editing (30 minutes in production)', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Long session');
    const editor = await openEditor(cast, cast.editor.client, page.id);
    // Typing goes on until two versions exist: on a loaded machine the keystrokes can reach the
    // server in bursts, so how many 50 ms gaps add up to 150 ms of active time is not fixed.
    const versionCount = async () => ((await cast.editor.client.get(`/pages/${page.id}/versions`)).body.items as unknown[]).length;
    let typed = 0;
    await waitFor(async () => {
      editor.type(String(typed++ % 10));
      await new Promise((resolve) => setTimeout(resolve, 50));
      return (await versionCount()) >= 2;
    }, 20_000, 'two versions while the editor stayed connected');
    assert.equal(editor.seen.closed, false, 'the versions came from active editing, not from leaving');
    const versions = (await cast.editor.client.get(`/pages/${page.id}/versions`)).body.items as { trigger: string }[];
    assert.ok(versions.every((version) => version.trigger === 'auto'));
    editor.destroy();
  });
});
