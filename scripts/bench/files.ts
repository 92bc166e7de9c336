/**
 * `npm run bench:files` — uploads and media delivery (issue 21), each figure against a
 * baseline measured in the same run.
 *
 * Processes: this one is the client (uploads over `node:http`, autocannon) and hosts the
 * scratch Postgres; the API process (apiBenchServer.ts, assembled as api/server.ts) and the
 * raw baseline (filesRawServer.ts) run in processes of their own, so their RSS is theirs and
 * not the client's. Where `taskset` exists this process is pinned to one core and both servers
 * to the other (printed at the start). The site admin creates a pond and a page through the
 * API and uploads as its owner.
 *
 * (u) Upload of a 50 MB file (filesUpload.ts): median MB/s against the raw server piping the
 *     same multipart body to disk with `createWriteStream`; target ≥ 0.7×. The API process's
 *     RSS growth from before the first upload to its peak: target ≤ +30 MB. A plain in-process
 *     `createWriteStream` of the same bytes, for information.
 * (m) `GET /media` of a 1 MB image (filesMedia.ts): req/s against the raw server streaming
 *     the same bytes from disk; target ≥ 0.5×.
 *
 * `max_file_bytes` is raised to 64 MiB: the file (50,000,000 bytes) fits the default 50 MiB,
 * but only by 2.4 MB; a smaller default must not turn the bench into a 413.
 *
 * Exits 0 when a target is missed (the table says so); only a crash exits non-zero.
 * `BENCH_FILES_RUNS` (5), `BENCH_FILES_ROUNDS` (3), `BENCH_FILES_SECONDS` (5),
 * `BENCH_FILES_CONNECTIONS` (10) change the run; `BENCH_FILES_PARTS` (um) picks parts;
 * `BENCH_NO_PIN=1` skips pinning; `BENCH_PROFILE_DIR` makes both servers write V8 CPU profiles.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setSetting } from '../../api/settings/instanceSettings.ts';
import { startApiBenchProcess, type ApiBenchProcess } from './apiBenchProcess.ts';
import { openBenchDatabase } from './benchDatabase.ts';
import { printTable, type Row } from './benchTable.ts';
import { mediaPart } from './filesMedia.ts';
import { startRawFilesServer, type RawFilesServer } from './filesServers.ts';
import { uploadPart } from './filesUpload.ts';
import { pinBenchProcess } from './publicServers.ts';
import { completeSetup, expectStatus } from './uiSeed.ts';

const RUNS = Number(process.env.BENCH_FILES_RUNS ?? 5);
const ROUNDS = Number(process.env.BENCH_FILES_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_FILES_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_FILES_CONNECTIONS ?? 10);
const PARTS = new Set(process.env.BENCH_FILES_PARTS ?? 'um');
const MAX_FILE_BYTES = 64 * 1024 ** 2;

function started(label: string): () => void {
  const at = Date.now();
  process.stdout.write(`  … ${label}`);
  return () => process.stdout.write(` (${((Date.now() - at) / 1000).toFixed(1)} s)\n`);
}

const pinning = pinBenchProcess();
const benchStarted = Date.now();
console.log(`bench:files — pinning: ${pinning.description}`);
const workDir = mkdtempSync(path.join(tmpdir(), 'dt-bench-files-'));
const database = await openBenchDatabase();
let api: ApiBenchProcess | null = null;
let raw: RawFilesServer | null = null;
try {
  let done = started('starting the API process and the raw server');
  api = await startApiBenchProcess(pinning, { DATABASE_URL: database.url });
  raw = await startRawFilesServer(pinning);
  done();
  console.log(`  api pid ${api.pid} on cpus ${api.cpus}; raw pid ${raw.pid} on cpus ${raw.cpus}`);

  done = started('setup, a pond and a page through the API');
  const admin = await completeSetup(api.origin);
  const pond = (await expectStatus(admin.post('/ponds', { name: 'Dateiteich' }), 201, 'POST /ponds')).body as { id: string };
  const page = (await expectStatus(admin.post(`/ponds/${pond.id}/pages`, { title: 'Anhänge', markdown: '# Anhänge\n\nBilder vom Teich.\n' }), 201, 'POST /ponds/:id/pages')).body as { id: string };
  await database.sequelize.transaction((transaction) => setSetting('quota.max_file_bytes', MAX_FILE_BYTES, { actorId: null, transaction }));
  if (!admin.sessionCookie) throw new Error('the setup left no session cookie');
  const headers = { cookie: `dt_session=${admin.sessionCookie}`, origin: api.origin };
  done();

  const rows: Row[] = [];
  const notes: string[] = [];
  if (PARTS.has('u')) {
    done = started(`(u) 50 MB uploads: a warm-up, then ${RUNS} runs each, API and raw alternating`);
    const upload = await uploadPart({ api, raw, uploader: admin, pageId: page.id, headers, workDir, runs: RUNS });
    done();
    rows.push(...upload.rows);
    notes.push(...upload.notes);
  }
  if (PARTS.has('m')) {
    done = started(`(m) GET /media of 1 MB, ${ROUNDS} × ${SECONDS} s per server, ${CONNECTIONS} connections, alternating`);
    const media = await mediaPart({ api, raw, pageId: page.id, headers, workDir, rounds: ROUNDS, seconds: SECONDS, connections: CONNECTIONS });
    done();
    rows.push(...media.rows);
    notes.push(...media.notes);
  }
  console.log('');
  printTable(rows);
  console.log('');
  for (const note of notes) console.log(`  ${note}`);
  console.log(`  whole run ${((Date.now() - benchStarted) / 1000).toFixed(0)} s`);
} finally {
  await api?.close();
  await raw?.close();
  await database.close();
  rmSync(workDir, { recursive: true, force: true });
}
