/**
 * The instance of the public bench, seeded straight into the scratch database (setup done,
 * the public origin saved as a setting):
 *
 * - pond `handbook`, public: `guide` (the measured page — wordPage.ts prose sized so its
 *   generated document is about 30 KB of HTML), below a parent `start`, with three children
 *   linking back to it; their derived data written by the real save path (saveDerivedData);
 * - pond `revocable` with one page `notice`, its public grant made and revoked by the bench;
 * - pond `archive`, public, with `archivePages` pages in two levels (100 top-level pages, the
 *   rest below them), their rendered content bulk-inserted from one rendered template.
 */
import { generateNKeysBetween } from 'fractional-indexing';
import { QueryTypes, type Sequelize } from 'sequelize';
import { documentToHtml, documentToMarkdown, extract, markdownToDocument } from '../../content-pipeline/index.ts';
import { saveDerivedData } from '../../api/documents/derivedData.ts';
import { setSetting } from '../../api/settings/instanceSettings.ts';
import { wordPageMarkdown } from './wordPage.ts';

export interface SeededPage {
  pondId: string;
  pageId: string;
  /** The human URL path. */
  path: string;
  markdown: string;
}

export interface PublicBenchData {
  ownerId: string;
  guide: SeededPage;
  revocable: { pondId: string; path: string };
  /** A page of a pond the public may not read, and a path of that pond naming no page. */
  hidden: { privatePath: string; missingPath: string };
  archive: { pondId: string; paths: string[] };
}

const ARCHIVE_ROOTS = 100;
const NUMBER_TOKEN = 'Qnumq';

type Select = <T extends object>(sql: string, bind?: unknown[]) => Promise<T[]>;

async function insertPond(select: Select, slug: string, name: string, ownerId: string, options: { public: boolean }): Promise<string> {
  const [pond] = await select<{ id: string }>(`INSERT INTO ponds (slug, name, kind, owner_id) VALUES ($1, $2, 'shared', $3) RETURNING id`, [slug, name, ownerId]);
  await select(`INSERT INTO grants (pond_id, subject_type, subject_user_id, role, scope_type, effect) VALUES ($1, 'user', $2, 'pond_admin', 'pond', 'allow') RETURNING id`, [pond!.id, ownerId]);
  if (options.public) await select(`INSERT INTO grants (pond_id, subject_type, role, scope_type, effect) VALUES ($1, 'public', 'reader', 'pond', 'allow') RETURNING id`, [pond!.id]);
  return pond!.id;
}

async function insertPage(select: Select, pondId: string, ownerId: string, page: { slug: string; title: string; parentId: string | null; position: string }): Promise<string> {
  const [row] = await select<{ id: string }>(
    `INSERT INTO pages (pond_id, slug, title, parent_id, position, created_by, updated_by) VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING id`,
    [pondId, page.slug, page.title, page.parentId, page.position, ownerId],
  );
  return row!.id;
}

/** Writes a page's content the way every save does. */
async function save(sequelize: Sequelize, pageId: string, ownerId: string, markdown: string): Promise<void> {
  await saveDerivedData(sequelize, { pageId, document: markdownToDocument(markdown), authorIds: [ownerId] });
}

/** A short archive page: three paragraphs, a list and a heading; the number makes each page's text its own. */
function archiveTemplate(): string {
  return [
    `# Eintrag ${NUMBER_TOKEN}`,
    '',
    wordPageMarkdown(180).split('\n').filter((line) => !line.startsWith('#') && !line.includes('[[') && !line.includes('![[')).slice(0, 6).join('\n'),
    '',
    `## Notiz ${NUMBER_TOKEN}`,
    '',
    `- Eintrag Nummer ${NUMBER_TOKEN}`,
    '- Stand: Archiv',
    '',
  ].join('\n');
}

async function seedArchive(sequelize: Sequelize, select: Select, ownerId: string, pages: number): Promise<{ pondId: string; paths: string[] }> {
  const pondId = await insertPond(select, 'archive', 'Archiv', ownerId, { public: true });
  const document = markdownToDocument(archiveTemplate());
  const extraction = extract(document);
  const template = { html: documentToHtml(document), markdown: documentToMarkdown(document), outline: JSON.stringify(extraction.outline), plainText: extraction.text, words: extraction.wordCount };
  const rootPositions = generateNKeysBetween(null, null, ARCHIVE_ROOTS);
  const childPositions = generateNKeysBetween(null, null, Math.ceil(pages / ARCHIVE_ROOTS));
  const roots = await select<{ id: string }>(
    `INSERT INTO pages (pond_id, slug, title, position, created_by, updated_by)
     SELECT $1, 'eintrag-' || t.n, 'Eintrag ' || t.n, t.position, $2, $2 FROM unnest($3::text[]) WITH ORDINALITY AS t (position, n)
     RETURNING id`,
    [pondId, ownerId, rootPositions],
  );
  // The rest below the roots, round-robin: about 99 children each.
  const rest = pages - ARCHIVE_ROOTS;
  const parents = Array.from({ length: rest }, (_, i) => roots[i % ARCHIVE_ROOTS]!.id);
  const positions = Array.from({ length: rest }, (_, i) => childPositions[Math.floor(i / ARCHIVE_ROOTS)]!);
  await sequelize.query(
    `INSERT INTO pages (pond_id, slug, title, parent_id, position, created_by, updated_by)
     SELECT $1, 'eintrag-' || (t.n + $5), 'Eintrag ' || (t.n + $5), t.parent_id, t.position, $2, $2
       FROM unnest($3::uuid[], $4::text[]) WITH ORDINALITY AS t (parent_id, position, n)`,
    { bind: [pondId, ownerId, parents, positions, ARCHIVE_ROOTS] },
  );
  await sequelize.query(
    `INSERT INTO page_contents (page_id, html, markdown, outline, plain_text, word_count)
     SELECT p.id, replace($2, $7, n.num), replace($3, $7, n.num), replace($4, $7, n.num)::jsonb, replace($5, $7, n.num), $6
       FROM pages p CROSS JOIN LATERAL (SELECT substr(p.slug, length('eintrag-') + 1) AS num) n
      WHERE p.pond_id = $1`,
    { bind: [pondId, template.html, template.markdown, template.outline, template.plainText, template.words, NUMBER_TOKEN] },
  );
  const rows = await select<{ slug: string }>(`SELECT slug FROM pages WHERE pond_id = $1 ORDER BY random()`, [pondId]);
  return { pondId, paths: rows.map((row) => `/archive/${row.slug}`) };
}

export async function seedPublicBench(sequelize: Sequelize, options: { guideWords: number; archivePages: number; publicOrigin: string }): Promise<PublicBenchData> {
  const select: Select = (sql, bind = []) => sequelize.query(sql, { bind, type: QueryTypes.SELECT });
  await sequelize.transaction(async (transaction) => {
    await setSetting('instance.name', 'Dorfteich Bench', { actorId: null, transaction });
    // Every process generating documents (API, worker, this one) then names the same origin: same bytes.
    await setSetting('instance.baseUrl', options.publicOrigin, { actorId: null, transaction });
    await setSetting('setup.completedAt', new Date().toISOString(), { actorId: null, transaction });
  });
  const [owner] = await select<{ id: string }>(`INSERT INTO users (username, email, display_name, status, password_hash) VALUES ('owner', 'owner@example.org', 'Owner', 'ACTIVE', 'x') RETURNING id`);
  const ownerId = owner!.id;

  const handbookId = await insertPond(select, 'handbook', 'Handbuch', ownerId, { public: true });
  const [startPosition, guidePosition] = generateNKeysBetween(null, null, 2) as [string, string];
  const startId = await insertPage(select, handbookId, ownerId, { slug: 'start', title: 'Start', parentId: null, position: startPosition });
  const guideId = await insertPage(select, handbookId, ownerId, { slug: 'guide', title: 'Der Dorfteich', parentId: startId, position: guidePosition });
  await save(sequelize, startId, ownerId, '# Start\n\nWillkommen im Handbuch. Weiter mit [[guide|dem Dorfteich]].\n');
  const markdown = wordPageMarkdown(options.guideWords);
  await save(sequelize, guideId, ownerId, markdown);
  const childPositions = generateNKeysBetween(null, null, 3);
  for (const [index, position] of childPositions.entries()) {
    const childId = await insertPage(select, handbookId, ownerId, { slug: `ufer-${index + 1}`, title: `Ufer ${index + 1}`, parentId: guideId, position });
    await save(sequelize, childId, ownerId, `# Ufer ${index + 1}\n\nZurück zu [[guide|dem Dorfteich]].\n`);
  }

  const revocableId = await insertPond(select, 'revocable', 'Widerruflich', ownerId, { public: false });
  const noticeId = await insertPage(select, revocableId, ownerId, { slug: 'notice', title: 'Aushang', parentId: null, position: generateNKeysBetween(null, null, 1)[0]! });
  await save(sequelize, noticeId, ownerId, '# Aushang\n\nÖffentlich, solange die Freigabe gilt.\n');

  const internalId = await insertPond(select, 'intern', 'Intern', ownerId, { public: false });
  const confidentialId = await insertPage(select, internalId, ownerId, { slug: 'vertraulich', title: 'Vertraulich', parentId: null, position: generateNKeysBetween(null, null, 1)[0]! });
  await save(sequelize, confidentialId, ownerId, '# Vertraulich\n\nNur für Mitglieder.\n');

  const archive = await seedArchive(sequelize, select, ownerId, options.archivePages);
  await sequelize.query('ANALYZE');
  return {
    ownerId,
    guide: { pondId: handbookId, pageId: guideId, path: '/handbook/guide', markdown },
    revocable: { pondId: revocableId, path: '/revocable/notice' },
    hidden: { privatePath: '/intern/vertraulich', missingPath: '/intern/gibt-es-nicht' },
    archive,
  };
}
