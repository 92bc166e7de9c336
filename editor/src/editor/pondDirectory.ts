/**
 * The pond's pages (title and slug) and members, as the editor's links and mentions need
 * them: loaded once per island on first use, then searched locally while typing.
 */
import { callApi } from '../api/apiClient.ts';
import type { PageSummaryView } from '../api/apiViews.ts';

const PAGE_BATCH = 1000;
const MAX_BATCHES = 20;

export interface PageEntry {
  slug: string;
  title: string;
}

export interface MemberEntry {
  userId: string;
  displayName: string;
  username: string;
}

export interface PondDirectory {
  pages(): Promise<PageEntry[]>;
  members(): Promise<MemberEntry[]>;
  /** Whether the slug names a page (case-insensitive); `null` while the list is not loaded. */
  pageExists(slug: string): boolean | null;
  /** Calls back once the page list has loaded (node views restyle phantoms then). */
  onPagesLoaded(listener: () => void): void;
}

export function createPondDirectory(pondId: string): PondDirectory {
  let pagesPromise: Promise<PageEntry[]> | null = null;
  let membersPromise: Promise<MemberEntry[]> | null = null;
  let known: Set<string> | null = null;
  const listeners: (() => void)[] = [];

  async function loadPages(): Promise<PageEntry[]> {
    const entries: PageEntry[] = [];
    let cursor: string | null = null;
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const query: string = `limit=${PAGE_BATCH}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const answer: { items: PageSummaryView[]; nextCursor: string | null } = await callApi('GET', `/ponds/${encodeURIComponent(pondId)}/pages?${query}`);
      entries.push(...answer.items.map((page) => ({ slug: page.slug, title: page.title })));
      cursor = answer.nextCursor;
      if (!cursor) break;
    }
    known = new Set(entries.map((entry) => entry.slug.toLowerCase()));
    for (const listener of listeners.splice(0)) listener();
    return entries;
  }

  async function loadMembers(): Promise<MemberEntry[]> {
    const answer: { groups: { role: string; members: (MemberEntry & { effectiveRole: string | null })[] }[] } = await callApi('GET', `/ponds/${encodeURIComponent(pondId)}/members`);
    return answer.groups.flatMap((group) => group.members).filter((member) => member.effectiveRole !== null);
  }

  return {
    pages() {
      pagesPromise ??= loadPages().catch((error: unknown) => {
        pagesPromise = null;
        throw error;
      });
      return pagesPromise;
    },
    members() {
      membersPromise ??= loadMembers().catch((error: unknown) => {
        membersPromise = null;
        throw error;
      });
      return membersPromise;
    },
    pageExists: (slug) => (known ? known.has(slug.toLowerCase()) : null),
    onPagesLoaded(listener) {
      if (known) listener();
      else listeners.push(listener);
    },
  };
}

/** Pages whose title or slug contains the query (case-insensitive), best matches first. */
export function matchPages(pages: PageEntry[], query: string, limit = 8): PageEntry[] {
  const wanted = query.trim().toLowerCase();
  if (!wanted) return pages.slice(0, limit);
  const scored = pages
    .map((page) => {
      const title = page.title.toLowerCase();
      const slug = page.slug.toLowerCase();
      const score = title === wanted || slug === wanted ? 0 : title.startsWith(wanted) || slug.startsWith(wanted) ? 1 : title.includes(wanted) || slug.includes(wanted) ? 2 : 3;
      return { page, score };
    })
    .filter((entry) => entry.score < 3);
  scored.sort((a, b) => a.score - b.score || a.page.title.localeCompare(b.page.title));
  return scored.slice(0, limit).map((entry) => entry.page);
}
