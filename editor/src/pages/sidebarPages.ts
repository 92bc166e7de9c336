/**
 * The pages the sidebar island starts with, packed into one string prop. Astro serializes an
 * island's props as tagged JSON inside an HTML attribute, where every key and quote of an
 * object costs bytes (about 650 per page); a pond of 2,000 pages made that 1.3 MB per screen,
 * and Astro hashes the whole of it per render. Packed, a page is its fields separated by tabs,
 * one page per line, the parent as the line number of its page (pages come parents first), so
 * no id is sent twice: about 120 bytes a page. Server and client unpack the same string, so
 * the first render in the browser matches the server's.
 */
import type { PageSummaryView } from '../api/apiViews.ts';

/** What the sidebar needs of a page. */
export type SidebarPage = Pick<PageSummaryView, 'id' | 'parentId' | 'slug' | 'title' | 'position' | 'labelIds'>;

const escapeField = (text: string) => text.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
const unescapeField = (text: string) => text.replace(/\\([\\tnr])/g, (_, code: string) => (code === 't' ? '\t' : code === 'n' ? '\n' : code === 'r' ? '\r' : '\\'));

/** Parents before their children, so a parent's line number is known when a child is written. */
function parentsFirst(pages: readonly SidebarPage[]): SidebarPage[] {
  const byId = new Map(pages.map((page) => [page.id, page]));
  const placed = new Set<string>();
  const ordered: SidebarPage[] = [];
  const place = (page: SidebarPage, trail: Set<string>) => {
    if (placed.has(page.id)) return;
    const parent = page.parentId ? byId.get(page.parentId) : undefined;
    // A cycle cannot come from the API; guard anyway so a bad list cannot loop.
    if (parent && !trail.has(parent.id)) place(parent, new Set(trail).add(page.id));
    placed.add(page.id);
    ordered.push(page);
  };
  for (const page of pages) place(page, new Set([page.id]));
  return ordered;
}

export function packSidebarPages(pages: readonly SidebarPage[]): string {
  const ordered = parentsFirst(pages);
  const lineOf = new Map(ordered.map((page, index) => [page.id, index]));
  return ordered
    .map((page) => {
      const parent = page.parentId !== null && lineOf.has(page.parentId) ? String(lineOf.get(page.parentId)) : '';
      return [page.id, parent, escapeField(page.slug), escapeField(page.title), page.position, (page.labelIds ?? []).join(',')].join('\t');
    })
    .join('\n');
}

export function unpackSidebarPages(packed: string): SidebarPage[] {
  if (packed === '') return [];
  const pages: SidebarPage[] = [];
  for (const line of packed.split('\n')) {
    const [id = '', parent = '', slug = '', title = '', position = '', labels = ''] = line.split('\t');
    pages.push({ id, parentId: parent === '' ? null : (pages[Number(parent)]?.id ?? null), slug: unescapeField(slug), title: unescapeField(title), position, labelIds: labels === '' ? [] : labels.split(',') });
  }
  return pages;
}
