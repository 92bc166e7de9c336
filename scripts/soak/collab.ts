/**
 * `npm run soak:collab` — 200 scripted editing sessions on 20 pages against the collab server
 * as a child process that is killed with SIGKILL at random moments (and restarted on the
 * same port each time). Not part of `npm test`.
 *
 * Counted, all of which must be 0:
 * - acknowledged updates lost: at every kill (before the restart) and at the end, a session's
 *   acknowledged clock is not in the page's log;
 * - documents with duplicated content: a session's marker (or a seeded page's initial
 *   Markdown) appears more than once;
 * - documents overwritten with a blank state: a page whose log held text is empty;
 * - clients whose state vector differs from the database after reconnect: once all sessions
 *   are over, every session's document is reconnected, and must then equal its page's log.
 * Also reported: markers missing at the end (typed but never stored, acknowledged or not).
 *
 * Meanwhile the log's table is locked against writes now and then (reads go on), so writes
 * and with them acks stall, as with a slow disk: the window between applying an update and
 * committing it becomes wide enough for kills and reconnects to fall into. And a random page's
 * log is compacted now and then (what the worker does after a page's last participant left,
 * api/documents/logCompaction.ts), here also while the page is open: the job's idle check and
 * someone opening the page again can race, and no acknowledged edit may be lost to that.
 *
 * Environment: SOAK_SESSIONS (200), SOAK_CONCURRENCY (12), SOAK_SEED (1), SOAK_STALLS (1; 0 = none),
 * SOAK_COMPACTIONS (1; 0 = none).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import * as Y from 'yjs';
import { signCollabToken } from '../../api/collab/collabToken.ts';
import { compactPageLog, loadDocumentState } from '../../api/documents/documentLog.ts';
import { withClientOf } from '../../api/documents/logCompaction.ts';
import { freePort } from '../../api/testing/freePort.ts';
import { spawnCollabProcess, type CollabProcess } from '../../collab/testing/collabProcess.ts';
import { openCollabDatabase, seedCollabPond } from '../bench/collabDatabase.ts';
import { seededRandom } from '../seededRandom.ts';
import { paragraphText } from '../../collab/testing/paragraphText.ts';
import { waitFor } from '../../api/testing/polling.ts';
import { connect, fullySynced, runSession, type SoakSession } from './collabSessions.ts';

const SESSIONS = Number(process.env.SOAK_SESSIONS ?? 200);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 12);
const PAGES = 20;
const USERS = 8;
/** Pages that start with Markdown only (`initial_markdown`): their first load seeds the log, exactly once. */
const SEEDED_PAGES = 5;
const KILL_EVERY_MS = [700, 3000] as const;
/** Database stalls: `page_updates` locked against writes for a while, as a slow disk or a busy server would. */
const STALL_EVERY_MS = [500, 2500] as const;
const STALL_FOR_MS = [50, 800] as const;
const STALLS = process.env.SOAK_STALLS !== '0';
const COMPACT_EVERY_MS = [300, 1500] as const;
const COMPACTIONS = process.env.SOAK_COMPACTIONS !== '0';
const PATIENCE_MS = 90_000;

const random = seededRandom(Number(process.env.SOAK_SEED ?? 1));
const between = (low: number, high: number) => low + Math.floor(random() * (high - low));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface PageState {
  text: string;
  clocks: Map<number, number>;
}

const counts = {
  acknowledgedUpdatesLost: 0,
  documentsWithDuplicatedContent: 0,
  documentsOverwrittenBlank: 0,
  clientsDifferingFromDatabase: 0,
};
const details: string[] = [];
const started = performance.now();
const database = await openCollabDatabase({ durable: false });
const pool = new pg.Pool({ connectionString: database.url, max: 4 });
let collab: CollabProcess | null = null;
try {
  const secret = randomBytes(32).toString('base64url');
  const pond = await seedCollabPond(database.sequelize, { users: USERS, pages: PAGES, label: 'soak' });
  const initialMarkers = new Map<string, string>();
  for (const pageId of pond.pageIds.slice(0, SEEDED_PAGES)) {
    const marker = `⟪init-${initialMarkers.size}⟫`;
    initialMarkers.set(pageId, marker);
    await pool.query(`UPDATE pages SET initial_markdown = $2 WHERE id = $1`, [pageId, `Startinhalt ${marker}`]);
  }
  const port = await freePort();
  collab = await spawnCollabProcess({ databaseUrl: database.url, sessionSecret: secret, port, storeDebounceMs: 200 });
  const url = collab.url;

  const sessions: SoakSession[] = Array.from({ length: SESSIONS }, (_, index) => ({
    index,
    pageId: pond.pageIds[Math.floor(random() * PAGES)]!,
    userId: pond.userIds[Math.floor(random() * USERS)]!,
    marker: `⟦s${index}⟧`,
    ydoc: new Y.Doc(),
    provider: null,
    ackedClock: 0,
    keystrokes: 0,
    wentOffline: false,
    leftAbruptly: false,
    problem: null,
  }));
  const tokenFor = (session: SoakSession) => () =>
    signCollabToken(secret, { pageId: session.pageId, userId: session.userId, origin: pond.origins.get(session.userId) ?? null, mode: 'rw' }).token;

  const hadText = new Set<string>();
  const lostSessions = new Set<number>();
  const readPages = async (): Promise<Map<string, PageState>> => {
    const pages = new Map<string, PageState>();
    for (const pageId of pond.pageIds) {
      // A page nobody opened yet would be seeded from its Markdown by this read: leave that to the server.
      const { rows } = await pool.query(`SELECT 1 FROM page_updates WHERE page_id = $1 LIMIT 1`, [pageId]);
      if (rows.length === 0) {
        pages.set(pageId, { text: '', clocks: new Map() });
        continue;
      }
      const { state } = await loadDocumentState(pool, pageId);
      const ydoc = new Y.Doc();
      Y.applyUpdate(ydoc, state);
      pages.set(pageId, { text: paragraphText(ydoc), clocks: Y.decodeStateVector(Y.encodeStateVectorFromUpdate(state)) });
      ydoc.destroy();
    }
    return pages;
  };
  /** Acknowledged clocks against the log, and pages that lost all their text. */
  const checkDurability = async (moment: string) => {
    const pages = await readPages();
    for (const session of sessions) {
      const stored = pages.get(session.pageId)!.clocks.get(session.ydoc.clientID) ?? 0;
      if (session.ackedClock > stored && !lostSessions.has(session.index)) {
        lostSessions.add(session.index);
        counts.acknowledgedUpdatesLost += 1;
        details.push(`${moment}: session ${session.index} was acknowledged up to clock ${session.ackedClock}, the log holds ${stored}${session.wentOffline ? ' (it had gone offline once)' : ''}`);
      }
    }
    for (const [pageId, page] of pages) {
      if (page.text.trim() !== '') hadText.add(pageId);
      else if (hadText.has(pageId)) {
        counts.documentsOverwrittenBlank += 1;
        hadText.delete(pageId);
        details.push(`${moment}: page ${pageId} held text and is now blank`);
      }
    }
    return pages;
  };

  // The killer: SIGKILL at random moments while sessions run, check the log, restart.
  let sessionsRunning = true;
  let kills = 0;
  const killer = (async () => {
    while (sessionsRunning) {
      await sleep(between(...KILL_EVERY_MS));
      if (!sessionsRunning) break;
      await collab!.kill9();
      kills += 1;
      await checkDurability(`kill ${kills}`);
      await sleep(between(0, 400));
      await collab!.restart();
    }
  })();

  // The staller: log writes wait (reads do not) while it holds the lock; acks must wait with them.
  let stalls = 0;
  const staller = (async () => {
    if (!STALLS) return;
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      while (sessionsRunning) {
        await sleep(between(...STALL_EVERY_MS));
        await client.query('BEGIN');
        await client.query('LOCK TABLE page_updates IN EXCLUSIVE MODE');
        stalls += 1;
        await sleep(between(...STALL_FOR_MS));
        await client.query('COMMIT');
      }
    } finally {
      await client.end();
    }
  })();

  // The compactor: merges a random page's log, whether or not someone has it open.
  let compactions = 0;
  const compactor = (async () => {
    if (!COMPACTIONS) return;
    while (sessionsRunning) {
      await sleep(between(...COMPACT_EVERY_MS));
      const pageId = pond.pageIds[between(0, pond.pageIds.length)]!;
      if ((await withClientOf(pool)((client) => compactPageLog(client, pageId))).mergedRows > 0) compactions += 1;
    }
  })();

  let next = 0;
  const workers = Array.from({ length: CONCURRENCY }, async () => {
    while (next < sessions.length) {
      const session = sessions[next++]!;
      await runSession(session, { url, token: tokenFor(session), random, patienceMs: PATIENCE_MS });
      if ((session.index + 1) % 25 === 0) console.log(`  … ${session.index + 1} sessions begun, ${kills} kills and ${stalls} stalls so far (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    }
  });
  await Promise.all(workers);
  sessionsRunning = false;
  await Promise.all([killer, staller, compactor]);

  // Everyone comes back: each session's document is reconnected and must converge with the log.
  await checkDurability('after the last session');
  for (const session of sessions) connect(session, url, tokenFor(session));
  const reconnectProblems: string[] = [];
  await waitFor(() => sessions.every((session) => fullySynced(session.provider!)), PATIENCE_MS, 'final reconnect', { intervalMs: 2 }).catch((error) => reconnectProblems.push((error as Error).message));
  const svOf = (ydoc: Y.Doc) => Y.decodeStateVector(Y.encodeStateVector(ydoc));
  const sameClocks = (a: Map<number, number>, b: Map<number, number>) => a.size === b.size && [...a].every(([client, clock]) => b.get(client) === clock);
  // Acknowledged means stored; the broadcasts between clients of a page may take a moment longer.
  const converged = async () => {
    const pages = await readPages();
    return { pages, differing: sessions.filter((session) => !sameClocks(svOf(session.ydoc), pages.get(session.pageId)!.clocks)) };
  };
  const convergedNow = async () => {
    const now = await converged();
    return now.differing.length === 0 && now;
  };
  // Best effort: whatever still differs after 5 s is counted below.
  const final = (await waitFor(convergedNow, 5_000, 'every client to match the log', { intervalMs: 100 }).catch(() => null)) ?? (await converged());
  await checkDurability('after the final reconnect');
  counts.clientsDifferingFromDatabase = final.differing.length;
  for (const session of final.differing.slice(0, 5)) details.push(`session ${session.index}'s document differs from page ${session.pageId}'s log after the final reconnect`);

  let markersMissing = 0;
  for (const [pageId, page] of final.pages) {
    const markers = [...sessions.filter((session) => session.pageId === pageId && session.keystrokes > 0).map((session) => session.marker), ...(initialMarkers.has(pageId) ? [initialMarkers.get(pageId)!] : [])];
    let duplicated = false;
    for (const marker of markers) {
      const occurrences = page.text.split(marker).length - 1;
      if (occurrences > 1) duplicated = true;
      if (occurrences === 0) markersMissing += 1;
    }
    if (duplicated) {
      counts.documentsWithDuplicatedContent += 1;
      details.push(`page ${pageId} holds a marker more than once`);
    }
  }
  for (const session of sessions) session.provider?.destroy();

  const problems = sessions.filter((session) => session.problem);
  const seconds = (performance.now() - started) / 1000;
  console.log(`soak:collab — ${SESSIONS} sessions (${CONCURRENCY} at a time) on ${PAGES} pages (${SEEDED_PAGES} seeded from Markdown), ${kills} SIGKILLs of the collab process, ${stalls} database write stalls, ${compactions} log compactions, ${seconds.toFixed(0)} s`);
  console.log(
    `  sessions: ${sessions.reduce((sum, session) => sum + session.keystrokes, 0).toLocaleString('en')} keystrokes, ${sessions.filter((session) => session.wentOffline).length} went offline for a while, ` +
      `${sessions.filter((session) => session.leftAbruptly).length} left without waiting for their acks, ${problems.length} could not finish`,
  );
  for (const [name, value] of Object.entries(counts)) console.log(`  ${name.replace(/[A-Z]/g, (letter) => ` ${letter.toLowerCase()}`).padEnd(48)} ${value}`);
  console.log(`  ${'(info) markers missing after the final reconnect'.padEnd(48)} ${markersMissing}`);
  for (const line of [...details, ...reconnectProblems, ...problems.map((session) => `session ${session.index}: ${session.problem}`)].slice(0, 20)) console.log(`  ! ${line}`);
  const failed = Object.values(counts).some((value) => value > 0) || markersMissing > 0 || reconnectProblems.length > 0 || problems.length > 0;
  process.exitCode = failed ? 1 : 0;
} finally {
  await collab?.stop().catch(() => undefined);
  await pool.end();
  await database.close();
}
