/**
 * An edit as the collaboration server stores it, for tests that need page history without a
 * socket: the page's document is read from its log, its content replaced, the resulting Yjs
 * updates appended to the log, and the derived data saved with `authorIds` as the editors.
 */
import type pg from 'pg';
import type { Sequelize } from 'sequelize';
import { markdownToDocument, replaceYDocContent, yDocToDocument } from '../../content-pipeline/index.ts';
import { saveDerivedData } from '../documents/derivedData.ts';
import { appendUpdates, loadYDoc } from '../documents/documentLog.ts';

export async function storeCollabEdit(pool: pg.Pool, sequelize: Sequelize, edit: { pageId: string; markdown: string; authorIds: string[] }): Promise<void> {
  const { pageId } = edit;
  const { ydoc } = await loadYDoc(pool, pageId);
  const updates: Uint8Array[] = [];
  ydoc.on('update', (update: Uint8Array) => updates.push(update));
  replaceYDocContent(ydoc, markdownToDocument(edit.markdown));
  const document = yDocToDocument(ydoc);
  ydoc.destroy();
  await appendUpdates(pool, updates.map((update) => ({ pageId, update })));
  await saveDerivedData(sequelize, { pageId, document, authorIds: edit.authorIds });
}
