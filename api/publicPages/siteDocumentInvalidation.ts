/**
 * Instance settings the public documents show: the landing and legal texts, whether
 * registration is open (the landing page's Sign up), and the
 * instance's name, public origin and default locale (every document's header, canonical URL
 * and labels). A change drops the landing and legal documents in the settings' transaction,
 * so the next visitor gets a fresh one (generated on demand), and queues the rest for the
 * worker.
 */
import type { Transaction } from 'sequelize';
import { transactionClient } from '../documents/documentLog.ts';
import { queueEverything, queuePublicChanges } from './publicDocumentQueue.ts';
import { announceDocumentChangesLocally, notifyDocumentChanges } from './publicDocumentStore.ts';

const SITE_TEXT_KEYS = new Set(['home.content', 'legal.imprint', 'legal.privacy', 'registration.mode']);
const INSTANCE_KEYS = new Set(['instance.name', 'instance.baseUrl', 'instance.defaultLocale']);

export async function siteSettingsChanged(transaction: Transaction, keys: readonly string[]): Promise<void> {
  const everything = keys.some((key) => INSTANCE_KEYS.has(key));
  if (!everything && !keys.some((key) => SITE_TEXT_KEYS.has(key))) return;
  const db = transactionClient(transaction);
  const { rows } = await db.query<{ path: string }>(`DELETE FROM public_documents WHERE kind IN ('home', 'legal') RETURNING path`);
  const paths = rows.map((row) => row.path);
  await notifyDocumentChanges(db, paths);
  transaction.afterCommit(() => announceDocumentChangesLocally(paths));
  if (everything) await queueEverything(db);
  else await queuePublicChanges(db, [{ pondId: null, pageId: null }]);
}
