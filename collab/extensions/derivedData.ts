/**
 * What a store does: the page's caches (HTML, Markdown, outline, links, mentions, search) are
 * rendered from the live document by the content pipeline (api/documents/derivedData.ts), on
 * Hocuspocus's debounced store and always when the last participant leaves. The users whose
 * edits a store renders are named to it (mention notifications name them as authors).
 */
import type { Document, Extension, onChangePayload, onStoreDocumentPayload } from '@hocuspocus/server';
import type { Sequelize } from 'sequelize';
import { yDocToDocument } from '../../content-pipeline/index.ts';
import { saveDerivedData } from '../../api/documents/derivedData.ts';
import type { Logger } from '../../api/logger.ts';
import type { ConnectionContext } from '../connectionContext.ts';
import { documentWritten } from '../durableAcks.ts';

export interface DerivedDataConfiguration {
  sequelize: Sequelize;
  logger: Logger;
}

export class CollabDerivedData implements Extension {
  extensionName = 'dorfteich-derived-data';
  configuration: DerivedDataConfiguration;
  /** Users who edited each document since its last store. */
  private readonly authorsSinceStore = new WeakMap<Document, Set<string>>();

  constructor(configuration: DerivedDataConfiguration) {
    this.configuration = { ...configuration };
  }

  async onChange({ document, connection }: onChangePayload<ConnectionContext>): Promise<void> {
    const userId = connection?.context.userId;
    if (!userId) return;
    let authors = this.authorsSinceStore.get(document);
    if (!authors) this.authorsSinceStore.set(document, (authors = new Set()));
    authors.add(userId);
  }

  async onStoreDocument({ document, documentName }: onStoreDocumentPayload): Promise<void> {
    const authorIds = [...(this.authorsSinceStore.get(document) ?? [])];
    this.authorsSinceStore.delete(document);
    try {
      // The caches never run ahead of the log (this page's writes; other pages' don't matter).
      await documentWritten(document);
      await saveDerivedData(this.configuration.sequelize, { pageId: documentName, document: yDocToDocument(document), authorIds });
    } catch (error) {
      this.configuration.logger.error({ err: (error as Error).message, pageId: documentName }, 'rendering the saved page failed');
    }
  }
}
