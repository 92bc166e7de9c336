/**
 * Automatic versions tell the page's watchers: a real collab server, real editing clients,
 * the last one leaving takes the version, and the watchers who did not edit get one
 * `page_changed` naming the contributors. A failing notification leaves the version be.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { Logger } from '../api/logger.ts';
import type { NotificationPayload } from '../api/notifications/notificationFanOut.ts';
import { seedPage } from '../api/testing/accessFixtures.ts';
import { CollabAutomaticVersions } from './extensions/automaticVersions.ts';
import { openEditor, useCollabCast, waitFor } from './testing/collabHarness.ts';

describe('notifications of automatic versions', () => {
  const cast = useCollabCast({ storeDebounceMs: 30, heartbeatIntervalMs: 100 });

  async function sql<T extends object>(query: string, replacements: Record<string, unknown>): Promise<T[]> {
    return cast.instance.services.sequelize.query<T>(query, { replacements, type: QueryTypes.SELECT });
  }

  test('the session-close snapshot notifies the watchers, the contributors as actors and never as recipients', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Edited together');
    for (const person of [cast.reader, cast.editor, cast.owner]) {
      await sql(`INSERT INTO watches (user_id, target_type, pond_id, page_id) VALUES (:userId, 'page', :pondId, :pageId)`, { userId: person.user.id, pondId: pond.id, pageId: page.id });
    }
    const first = await openEditor(cast, cast.editor.client, page.id);
    const second = await openEditor(cast, cast.owner.client, page.id);
    first.type('one');
    await first.allSynced();
    second.type('two');
    await second.allSynced();
    first.destroy();
    second.destroy();

    const rows = await waitFor(
      async () => {
        const found = await sql<{ user_id: string; type: string; payload: NotificationPayload }>(`SELECT user_id, type, payload FROM notifications WHERE page_id = :pageId`, { pageId: page.id });
        return found.length > 0 && found;
      },
      5000,
      'the snapshot’s notification',
    );
    const [version] = await sql<{ trigger: string; contributor_ids: string[] }>(`SELECT trigger, contributor_ids FROM page_versions WHERE page_id = :pageId`, { pageId: page.id });
    assert.equal(version!.trigger, 'auto');
    assert.deepEqual(
      rows.map((row) => [row.user_id, row.type]),
      [[cast.reader.user.id, 'page_changed']],
    );
    const payload = rows[0]!.payload;
    assert.equal(payload.changeCount, 1);
    assert.equal(payload.versionLabel, null);
    assert.deepEqual(
      payload.actors.map((actor) => actor.id),
      version!.contributor_ids,
    );
    assert.deepEqual([...version!.contributor_ids].sort(), [cast.editor.user.id, cast.owner.user.id].sort());
  });

  test('a notification that fails is logged and leaves the version written', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Abandoned');
    await sql(`INSERT INTO page_contributors (page_id, user_id) VALUES (:pageId, :userId)`, { pageId: page.id, userId: cast.editor.user.id });
    const errors: string[] = [];
    const logger = { error: (_details: unknown, message: string) => errors.push(message) } as unknown as Logger;
    const broken = { query: () => Promise.reject(new Error('database gone')) } as unknown as Sequelize;
    const pool = new pg.Pool({ connectionString: cast.instance.services.config.databaseUrl!, max: 1 });
    try {
      const versions = new CollabAutomaticVersions({ pool, sequelize: broken, logger });
      await versions.versionAbandonedPages([page.id]);
    } finally {
      await pool.end();
    }
    const written = await sql<{ trigger: string }>(`SELECT trigger FROM page_versions WHERE page_id = :pageId`, { pageId: page.id });
    assert.deepEqual(written, [{ trigger: 'auto' }]);
    assert.deepEqual(errors, ['notifying the watchers of an automatic version failed']);
  });
});
