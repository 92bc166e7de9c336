/**
 * Generating and storing public documents: on demand (the first request for a document
 * missing from storage) and from the queue (publicDocumentJob.ts). Each generation runs under
 * the pond's shared generation lock with access read fresh (see publicDocumentStore.ts), and
 * either stores the document or, when the public may no longer read it, deletes it.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { transactionClient, type Queryable } from '../documents/documentLog.ts';
import {
  generateHomeDocument,
  generateLegalDocument,
  generatePageDocument,
  generatePondIndex,
  landingPath,
  loadSiteContext,
  type GeneratedDocument,
  type LegalKind,
} from './publicDocumentGenerator.ts';
import { findPageBySlugs, isPagePubliclyReadable } from './publicDocumentData.ts';
import { LOCALES, type Locale } from '../i18n/locale.ts';
import { deleteDocument, loadStoredDocumentAt, lockLandingDocuments, storeDocument, withPondLock, type StoredDocument } from './publicDocumentStore.ts';

export interface GenerationContext {
  sequelize: Sequelize;
  /** `BASE_URL`: the public origin when setup saved none. */
  fallbackBaseUrl: string;
}

export interface GenerationResult {
  /** The document as stored now, or null when the public may not read it. */
  document: StoredDocument | null;
  /** Whether the stored bytes changed (or the document was deleted). */
  changed: boolean;
}

async function store(db: Queryable, document: GeneratedDocument): Promise<GenerationResult> {
  const { changed, stored } = await storeDocument(db, document);
  return { document: stored, changed };
}

async function pondOfPage(sequelize: Sequelize, pageId: string): Promise<string | null> {
  const [row] = await sequelize.query<{ pond_id: string }>(`SELECT pond_id FROM pages WHERE id = :pageId`, { replacements: { pageId }, type: QueryTypes.SELECT });
  return row?.pond_id ?? null;
}

export async function regeneratePage(context: GenerationContext, pageId: string): Promise<GenerationResult> {
  const pondId = await pondOfPage(context.sequelize, pageId);
  if (!pondId) {
    // Purged: its row went with it (ON DELETE CASCADE); nothing to generate.
    return { document: null, changed: false };
  }
  return withPondLock(context.sequelize, pondId, 'shared', async (transaction) => {
    const db = transactionClient(transaction);
    const site = await loadSiteContext(context.fallbackBaseUrl, transaction);
    const document = await generatePageDocument(context.sequelize, site, pageId, transaction);
    if (!document) return { document: null, changed: await deleteDocument(db, { kind: 'page', pageId, pondId, path: '' }) };
    return store(db, document);
  });
}

export async function regeneratePondIndex(context: GenerationContext, pondId: string): Promise<GenerationResult> {
  return withPondLock(context.sequelize, pondId, 'shared', async (transaction) => {
    const db = transactionClient(transaction);
    const site = await loadSiteContext(context.fallbackBaseUrl, transaction);
    const document = await generatePondIndex(context.sequelize, site, pondId, transaction);
    if (!document) return { document: null, changed: await deleteDocument(db, { kind: 'pond', pageId: null, pondId, path: '' }) };
    return store(db, document);
  });
}

/** The landing page in one locale (`home:de`, `home:en`), or a legal page. */
export type SiteDocumentKey = `home:${Locale}` | LegalKind;

export async function regenerateSiteDocument(context: GenerationContext, key: SiteDocumentKey): Promise<GenerationResult> {
  return withPondLock(context.sequelize, null, 'shared', async (transaction) => {
    const db = transactionClient(transaction);
    const site = await loadSiteContext(context.fallbackBaseUrl, transaction);
    if (key === 'imprint' || key === 'privacy') return store(db, await generateLegalDocument(site, key));
    await lockLandingDocuments(db, 'shared');
    return store(db, await generateHomeDocument(context.sequelize, site, key.slice('home:'.length) as Locale, transaction));
  });
}

export const LANDING_DOCUMENT_KEYS: readonly SiteDocumentKey[] = LOCALES.map((locale) => `home:${locale}` as const);
export const SITE_DOCUMENT_KEYS: readonly SiteDocumentKey[] = [...LANDING_DOCUMENT_KEYS, 'imprint', 'privacy'];

/** What a lowercased storage path names: a site document, a pond index or a page. */
export type DocumentAddress =
  | { kind: 'site'; key: SiteDocumentKey }
  | { kind: 'pond'; pondSlug: string }
  | { kind: 'page'; pondSlug: string; pageSlug: string };

export function addressOfPath(path: string): DocumentAddress {
  for (const locale of LOCALES) if (path === landingPath(locale)) return { kind: 'site', key: `home:${locale}` };
  if (path === '/legal/imprint') return { kind: 'site', key: 'imprint' };
  if (path === '/legal/privacy') return { kind: 'site', key: 'privacy' };
  const [pondSlug, pageSlug] = path.slice(1).split('/');
  return pageSlug === undefined ? { kind: 'pond', pondSlug: pondSlug! } : { kind: 'page', pondSlug: pondSlug!, pageSlug };
}

let onDemandGenerations = 0;

/** How many page or pond documents requests have generated on demand in this process: what tests observe. */
export function onDemandGenerationCount(): number {
  return onDemandGenerations;
}

/**
 * The stored document at a lowercased path, generating it first when storage has none.
 * Null when there is nothing the public may read there (missing and private alike).
 */
export async function documentAtPath(context: GenerationContext, path: string): Promise<StoredDocument | null> {
  const stored = await loadStoredDocumentAt(context.sequelize, path);
  if (stored) return stored;
  const address = addressOfPath(path);
  let result: GenerationResult;
  if (address.kind === 'site') {
    result = await regenerateSiteDocument(context, address.key);
  } else {
    const found = await findPageBySlugs(context.sequelize, address.pondSlug, address.kind === 'page' ? address.pageSlug : null);
    if (!found) return null;
    // Decided from the cached access data before any lock or generation: a private page then
    // costs what a missing one does (no timing oracle), and the public cannot make us work.
    // The generation below still checks access afresh under the lock.
    if (found.pageId && !(await isPagePubliclyReadable(context.sequelize, found.pondId, found.pageId))) return null;
    onDemandGenerations += 1;
    result = found.pageId ? await regeneratePage(context, found.pageId) : await regeneratePondIndex(context, found.pondId);
  }
  // The document as just stored: its bytes are already here, no need to read them back.
  return result.document?.path === path ? result.document : null;
}
