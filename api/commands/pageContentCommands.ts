/**
 * Content updates from the public REST API and MCP: replace a page's content by Markdown, or
 * append Markdown at its end. Both go through the live document the way a version restore
 * does (liveDocumentEdit.ts): one update appended to the log and announced on
 * `page_updates_appended`, so open editors converge and history stays append-only.
 *
 * Each update stores the NEW state as a `MANUAL` version labelled `API update` (the spec's
 * rule), created by the token's user, whose contributors include that user. It is a named
 * version, so, like a named manual version (versionCommands.ts createManualVersion), it
 * notifies the page's watchers (`page_changed`, the user as the actor, the label shown) in the
 * same transaction; the fan-out folds repeated updates into one unread notification.
 */
import type { Sequelize } from 'sequelize';
import * as Y from 'yjs';
import { appendYDocContent, markdownToDocument, replaceYDocContent, type DocumentJson } from '../../content-pipeline/index.ts';
import { createVersion } from '../documents/versions.ts';
import { notFound } from '../http/apiError.ts';
import { Page } from '../models/index.ts';
import { notifyPageEvent } from '../notifications/notificationFanOut.ts';
import { editLiveDocument } from './liveDocumentEdit.ts';

/** The label of the version an API content update stores (spec: Public REST API, page rules). */
export const API_UPDATE_VERSION_LABEL = 'API update';

export interface PageContentProps {
  pageId: string;
  /** The token's user; the caller has checked their write access on the page. */
  userId: string;
  markdown: string;
}

export interface PageContentResult {
  /** The page as it is after the update (reloaded). */
  page: Page;
  /** The `API update` version holding the new state. */
  versionId: string;
}

/** Replaces the page's whole content by the Markdown's document. 404 / `page_trashed` as a restore. */
export function replacePageContent(sequelize: Sequelize, props: PageContentProps): Promise<PageContentResult> {
  const document = markdownToDocument(props.markdown);
  return updateContent(sequelize, props, (ydoc) => replaceYDocContent(ydoc, document));
}

/**
 * Adds the Markdown's blocks after the page's content; nothing there is removed or rewritten,
 * including what an editor typed just before. Blank Markdown adds nothing (its document is a
 * lone empty paragraph, which would only leave a gap); the version is still stored.
 */
export function appendPageContent(sequelize: Sequelize, props: PageContentProps): Promise<PageContentResult> {
  const document = markdownToDocument(props.markdown);
  return updateContent(sequelize, props, (ydoc) => {
    if (!isBlank(document)) appendYDocContent(ydoc, document);
  });
}

function isBlank(document: DocumentJson): boolean {
  const blocks = document.content ?? [];
  return blocks.length === 0 || (blocks.length === 1 && blocks[0]!.type === 'paragraph' && !blocks[0]!.content?.length);
}

async function updateContent(sequelize: Sequelize, props: PageContentProps, edit: (ydoc: Y.Doc) => void): Promise<PageContentResult> {
  const { pageId, userId } = props;
  const versionId = await sequelize.transaction(async (transaction) => {
    let id = '';
    await editLiveDocument(sequelize, transaction, {
      pageId,
      userId,
      edit,
      afterEdit: async (db, state) => {
        id = (await createVersion(db, { pageId, trigger: 'MANUAL', label: API_UPDATE_VERSION_LABEL, createdBy: userId, state })).id;
        await notifyPageEvent(sequelize, { type: 'page_changed', pageId, actorIds: [userId], versionLabel: API_UPDATE_VERSION_LABEL }, transaction);
      },
    });
    return id;
  });
  const page = await Page.findByPk(pageId);
  if (!page) throw notFound();
  return { page, versionId };
}
