/**
 * Content replacement and append as the public API and MCP make them, against a real
 * collaboration server with open `HocuspocusProvider` editors: the editors converge on the
 * new content, an append never removes anything (also what an editor typed just before), the
 * `MANUAL` version `API update` holds the new state, the derived data follows, watchers hear
 * of it, and a trashed page is refused with nothing written.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { QueryTypes } from 'sequelize';
import * as Y from 'yjs';
import { markdownToDocument, yDocToDocument, yjsUpdateToDocument } from '../../content-pipeline/index.ts';
import { editorPool, useCollabCast, waitFor, type CollabCast, type TestEditor } from '../../collab/testing/collabHarness.ts';
import { loadDocumentState, loadPageUpdates } from '../documents/documentLog.ts';
import { ApiError } from '../http/apiError.ts';
import type { Pond } from '../models/index.ts';
import { seedPage } from '../testing/accessFixtures.ts';
import { API_UPDATE_VERSION_LABEL, appendPageContent, replacePageContent } from './pageContentCommands.ts';

async function rows<T extends object>(cast: CollabCast, sql: string, replacements: Record<string, unknown> = {}): Promise<T[]> {
  return cast.instance.services.sequelize.query<T>(sql, { replacements, type: QueryTypes.SELECT });
}

/** Appends a paragraph at the end of the editor's document, as typing in a new last line does. */
function typeParagraph(editor: TestEditor, text: string): void {
  editor.ydoc.transact(() => {
    const paragraph = new Y.XmlElement('paragraph');
    paragraph.insert(0, [new Y.XmlText(text)]);
    const fragment = editor.ydoc.getXmlFragment('default');
    fragment.insert(fragment.length, [paragraph]);
  });
}

describe('page content updates through the live document', () => {
  let pool: pg.Pool;
  // Registered before the cast's hooks: the pool closes before the instance drops the database.
  after(() => pool?.end());
  const cast = useCollabCast({ storeDebounceMs: 30 });
  const { open, closeAll } = editorPool(cast);
  const sequelize = () => cast.instance.services.sequelize;
  before(() => {
    pool = new pg.Pool({ connectionString: cast.instance.services.config.databaseUrl!, max: 2 });
  });

  /** The page's document as its update log holds it (what a fresh editor would open). */
  const logDocument = async (pageId: string) => yjsUpdateToDocument((await loadDocumentState(pool, pageId)).state);

  async function pageWith(pond: Pond, markdown: string): Promise<string> {
    const response = await cast.owner.client.post(`/ponds/${pond.id}/pages`, { title: `Page ${Math.random().toString(36).slice(2, 8)}`, markdown });
    assert.equal(response.status, 201, response.text);
    return response.body.id;
  }

  test('replace: open editors converge, the API update version holds the new state, caches, search and watchers follow', async (t) => {
    t.after(closeAll);
    const pond = await cast.seedTeamPond();
    const pageId = await pageWith(pond, '# Old plan\n\nThe walrus paragraph.');
    const watch = await cast.owner.client.request('PUT', `/watches/page/${pageId}`);
    assert.equal(watch.status, 204, watch.text);
    const a = await open(cast.editor.client, pageId);
    const b = await open(cast.reader.client, pageId);
    const logBefore = await loadPageUpdates(pool, pageId);

    const markdown = '# New plan\n\nA zebrafish swims **here**.\n\n- one\n- two';
    const result = await replacePageContent(sequelize(), { pageId, userId: cast.editor.user.id, markdown });
    const expected = markdownToDocument(markdown);

    await waitFor(() => isDeepEqual(yDocToDocument(a.ydoc), expected) && isDeepEqual(yDocToDocument(b.ydoc), expected), 5000, 'open editors did not converge on the replaced content');
    assert.equal(result.page.id, pageId);
    assert.equal(result.page.updatedBy, cast.editor.user.id);
    assert.deepEqual(await logDocument(pageId), expected);

    // Append-only: one new row, every earlier one untouched.
    const logAfter = await loadPageUpdates(pool, pageId);
    assert.equal(logAfter.length, logBefore.length + 1);
    assert.deepEqual(logAfter.slice(0, logBefore.length), logBefore);

    const [version] = await rows<{ id: string; trigger: string; label: string; created_by: string; contributor_ids: string[]; state: Buffer }>(
      cast,
      `SELECT id, trigger, label, created_by, contributor_ids, state FROM page_versions WHERE page_id = :pageId`,
      { pageId },
    );
    assert.equal(version?.id, result.versionId);
    assert.equal(version.trigger, 'MANUAL');
    assert.equal(version.label, API_UPDATE_VERSION_LABEL);
    assert.equal(version.label, 'API update');
    assert.equal(version.created_by, cast.editor.user.id);
    assert.ok(version.contributor_ids.includes(cast.editor.user.id), 'the API user contributed to the version');
    assert.deepEqual(yjsUpdateToDocument(version.state), expected);

    const [content] = await rows<{ markdown: string; plain_text: string }>(cast, `SELECT markdown, plain_text FROM page_contents WHERE page_id = :pageId`, { pageId });
    assert.match(content!.markdown, /^# New plan\n\nA zebrafish swims \*\*here\*\*\./);
    assert.doesNotMatch(content!.plain_text, /walrus/);
    const hits = async (q: string) => (await cast.reader.client.get(`/search?q=${q}&pondId=${pond.id}`)).body.items.map((hit: { id: string }) => hit.id);
    assert.deepEqual(await hits('zebrafish'), [pageId]);
    assert.deepEqual(await hits('walrus'), []);

    const [notification] = await rows<{ type: string; payload: { versionLabel: string; actors: { id: string }[] } }>(
      cast,
      `SELECT type, payload FROM notifications WHERE user_id = :userId AND page_id = :pageId`,
      { userId: cast.owner.user.id, pageId },
    );
    assert.equal(notification?.type, 'page_changed');
    assert.equal(notification.payload.versionLabel, 'API update');
    assert.deepEqual(notification.payload.actors.map((actor) => actor.id), [cast.editor.user.id]);

    // Editing goes on on top of the replaced content.
    a.type('!');
    await a.allSynced();
    await waitFor(() => b.text().startsWith('New plan!'), 5000, 'an edit after the replacement did not propagate');
  });

  test('append: every earlier paragraph stays, the new blocks follow in order, repeated appends accumulate', async (t) => {
    t.after(closeAll);
    const pond = await cast.seedTeamPond();
    const pageId = await pageWith(pond, 'one\n\ntwo');
    const editor = await open(cast.editor.client, pageId);
    typeParagraph(editor, 'typed');
    await editor.allSynced();

    const first = await appendPageContent(sequelize(), { pageId, userId: cast.owner.user.id, markdown: 'three' });
    const second = await appendPageContent(sequelize(), { pageId, userId: cast.owner.user.id, markdown: '## four\n\nfive' });
    await waitFor(() => editor.text() === 'one\ntwo\ntyped\nthree\nfour\nfive', 5000, `the editor did not converge: ${editor.text()}`);
    assert.deepEqual(await logDocument(pageId), yDocToDocument(editor.ydoc));
    assert.deepEqual(await logDocument(pageId), markdownToDocument('one\n\ntwo\n\ntyped\n\nthree\n\n## four\n\nfive'));

    const versions = await rows<{ id: string; label: string; trigger: string; state: Buffer }>(cast, `SELECT id, label, trigger, state FROM page_versions WHERE page_id = :pageId ORDER BY created_at, id`, { pageId });
    assert.deepEqual(versions.map((version) => version.id).sort(), [first.versionId, second.versionId].sort());
    assert.ok(versions.every((version) => version.trigger === 'MANUAL' && version.label === 'API update'));
    // Each version holds the state right after its own update.
    const firstState = versions.find((version) => version.id === first.versionId)!.state;
    assert.deepEqual(yjsUpdateToDocument(firstState), markdownToDocument('one\n\ntwo\n\ntyped\n\nthree'));
    // The collaboration server's debounced store of the typed paragraph may land after the
    // appends and render its live document before it applied them; its next store (the
    // applied rows schedule one) renders everything. The caches converge like the editors.
    const cached = async () => (await rows<{ markdown: string }>(cast, `SELECT markdown FROM page_contents WHERE page_id = :pageId`, { pageId }))[0]?.markdown ?? '';
    await waitFor(async () => /^one\n\ntwo\n\ntyped\n\nthree\n\n## four\n\nfive\n?$/.test(await cached()), 5000, 'the Markdown cache holds every paragraph');
    assert.equal(second.page.updatedBy, cast.owner.user.id);
  });

  test('append right after an editor typed (not yet acknowledged) loses neither side, and everybody converges', async (t) => {
    t.after(closeAll);
    const pond = await cast.seedTeamPond();
    const pageId = await pageWith(pond, 'alpha\n\nbeta');
    const typist = await open(cast.editor.client, pageId);
    const watcher = await open(cast.reader.client, pageId);
    for (let round = 1; round <= 3; round += 1) {
      typeParagraph(typist, `typed ${round}`);
      // No wait for the acknowledgement: the update may or may not be in the log yet.
      await appendPageContent(sequelize(), { pageId, userId: cast.owner.user.id, markdown: `appended ${round}` });
    }
    const complete = (text: string) => ['typed 1', 'typed 2', 'typed 3', 'appended 1', 'appended 2', 'appended 3'].every((line) => text.split('\n').includes(line));
    await waitFor(() => complete(typist.text()) && complete(watcher.text()) && typist.text() === watcher.text(), 5000, `no convergence: ${typist.text()} / ${watcher.text()}`);
    await typist.allSynced();
    const lines = typist.text().split('\n');
    assert.deepEqual(lines.slice(0, 2), ['alpha', 'beta'], 'the earlier paragraphs stay first');
    assert.equal(lines.length, 8);
    // The appends keep their order; where a typed paragraph lands beside one depends on the race.
    assert.ok(lines.indexOf('appended 1') < lines.indexOf('appended 2') && lines.indexOf('appended 2') < lines.indexOf('appended 3'), lines.join(' | '));
    await waitFor(async () => isDeepEqual(await logDocument(pageId), yDocToDocument(typist.ydoc)), 5000, 'the log holds what the editors hold');
  });

  test('a trashed page is refused with page_trashed (404) and nothing is written; a missing one with not_found', async () => {
    const pond = await cast.seedTeamPond();
    const trashed = await seedPage(pond.id, 'Binned', { trashed: true });
    for (const update of [replacePageContent, appendPageContent]) {
      await assert.rejects(update(sequelize(), { pageId: trashed.id, userId: cast.owner.user.id, markdown: 'nope' }), (error: unknown) => {
        assert.ok(error instanceof ApiError);
        assert.equal(error.code, 'page_trashed');
        assert.equal(error.status, 404);
        return true;
      });
    }
    await assert.rejects(replacePageContent(sequelize(), { pageId: '00000000-0000-4000-8000-000000000000', userId: cast.owner.user.id, markdown: 'x' }), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, 'not_found');
      return true;
    });
    const [counts] = await rows<{ versions: number; updates: number }>(
      cast,
      `SELECT (SELECT count(*)::int FROM page_versions WHERE page_id = :id) AS versions, (SELECT count(*)::int FROM page_updates WHERE page_id = :id) AS updates`,
      { id: trashed.id },
    );
    assert.deepEqual(counts, { versions: 0, updates: 0 });
  });

  test('blank Markdown appends nothing but still records the API update version', async () => {
    const pond = await cast.seedTeamPond();
    const pageId = await pageWith(pond, 'kept');
    const result = await appendPageContent(sequelize(), { pageId, userId: cast.editor.user.id, markdown: '  \n' });
    assert.deepEqual(await logDocument(pageId), markdownToDocument('kept'));
    const [version] = await rows<{ id: string; label: string }>(cast, `SELECT id, label FROM page_versions WHERE page_id = :pageId`, { pageId });
    assert.deepEqual(version, { id: result.versionId, label: 'API update' });
  });
});

function isDeepEqual(a: unknown, b: unknown): boolean {
  try {
    assert.deepEqual(a, b);
    return true;
  } catch {
    return false;
  }
}

