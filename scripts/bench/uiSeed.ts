/**
 * The UI bench's instance state, written through the running API as a browser would: the setup
 * wizard's calls (the Site Admin's session is the bench's signed-in user), one shared pond, and
 * its pages created one by one with `POST /ponds/:id/pages` (so every page has its document
 * log, derived data, links and search entry exactly as the API writes them), level by level
 * into a tree of a few levels: each page below a random page of the level above.
 */
import { TestClient, type TestResponse } from '../../api/testing/testClient.ts';
import { seededRandom } from '../seededRandom.ts';
import { BENCH_WORDS, wordPageMarkdown } from './wordPage.ts';

const ADMIN = { username: 'ada', email: 'ada@example.org', password: 'correct horse battery', displayName: 'Ada Admin' };
/** Requests in flight while seeding; creations serialize on the pond lock, their rendering does not. */
const SEED_CONCURRENCY = 4;
const TOPICS = ['Protokoll', 'Anleitung', 'Notiz', 'Plan', 'Bericht', 'Liste', 'Entwurf', 'Übersicht', 'Termin', 'Idee'];

export interface UiBenchData {
  client: TestClient;
  sessionCookie: string;
  pond: { id: string; slug: string };
  /** The page whose address is measured: on the third level, with a body of some length. */
  page: { id: string; slug: string; title: string };
  pageCount: number;
  levels: number[];
}

export async function expectStatus(response: Promise<TestResponse>, status: number, what: string): Promise<TestResponse> {
  const answered = await response;
  if (answered.status !== status) throw new Error(`${what} answered ${answered.status}: ${answered.text.slice(0, 300)}`);
  return answered;
}

/** Runs the setup wizard through the API; the returned client holds the Site Admin's session. */
export async function completeSetup(baseUrl: string): Promise<TestClient> {
  const admin = new TestClient(baseUrl);
  await expectStatus(admin.post('/setup/admin', ADMIN), 201, 'POST /setup/admin');
  await expectStatus(admin.post('/setup/instance', { name: 'Bench-Teich', baseUrl, defaultLocale: 'en' }), 200, 'POST /setup/instance');
  await expectStatus(admin.post('/setup/registration', { mode: 'closed' }), 200, 'POST /setup/registration');
  await expectStatus(admin.post('/setup/complete'), 200, 'POST /setup/complete');
  return admin;
}

/** A page's short body: a heading and a paragraph, its number making the text its own. */
function shortBody(title: string, number: number): string {
  const words = Array.from({ length: 40 }, (_, i) => BENCH_WORDS[(number + i * 5) % BENCH_WORDS.length]!);
  return `# ${title}\n\n${words.join(' ')}.\n\n- Stand ${number}\n- offen\n`;
}

async function inBatches<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** `levels`: pages per level, top first (e.g. 24 / 176 / 800 / 1,000 = 2,000 in 4 levels). */
export async function seedUiBench(baseUrl: string, levels: readonly number[]): Promise<UiBenchData> {
  const client = await completeSetup(baseUrl);
  const sessionCookie = client.sessionCookie;
  if (!sessionCookie) throw new Error('the setup wizard left no session cookie');
  const pond = (await expectStatus(client.post('/ponds', { name: 'Gemeindeteich' }), 201, 'POST /ponds')).body as { id: string; slug: string };
  const random = seededRandom(2_000);
  let number = 0;
  let above: string[] = [];
  let measured: UiBenchData['page'] | null = null;
  for (const [level, size] of levels.entries()) {
    const planned = Array.from({ length: size }, () => {
      number += 1;
      const title = `${TOPICS[number % TOPICS.length]} ${BENCH_WORDS[number % BENCH_WORDS.length]!.replace(/^./, (first) => first.toUpperCase())} ${number}`;
      return { number, title, parentId: level === 0 ? null : above[Math.floor(random() * above.length)]! };
    });
    const created: string[] = [];
    // The first page of the third level (or the deepest there is) is the one measured: a longer body.
    const measuredNumber = level === Math.min(2, levels.length - 1) ? planned[0]!.number : -1;
    await inBatches(planned, SEED_CONCURRENCY, async ({ number: own, title, parentId }) => {
      const markdown = own === measuredNumber ? wordPageMarkdown(400) : shortBody(title, own);
      const response = await expectStatus(client.post(`/ponds/${pond.id}/pages`, { title, parentId, markdown }), 201, `POST /ponds/${pond.id}/pages`);
      const page = response.body as { id: string; slug: string };
      created.push(page.id);
      if (own === measuredNumber) measured = { id: page.id, slug: page.slug, title };
    });
    above = created;
  }
  if (!measured) throw new Error('no page was picked for measuring');
  return { client, sessionCookie, pond, page: measured, pageCount: number, levels: [...levels] };
}
