/**
 * Whom a comment may mention: the members of the page's pond (`GET /ponds/:id/members`, as the
 * page editor's `@` list reads them), found through the page (`GET /pages/:id`, its pond),
 * because the comment forms know the page, not the pond. Loaded once per page on the first
 * `@`; a failure is not kept, so the next `@` tries again. Someone who may comment without
 * being a member (a grant to all signed-in users) gets a refusal here, and no list.
 */
import { callApi } from '../api/apiClient.ts';
import { createPondDirectory, type MemberEntry } from '../editor/pondDirectory.ts';

export type MemberSource = () => Promise<MemberEntry[]>;

const byPage = new Map<string, Promise<MemberEntry[]>>();

export function pageMemberSource(pageId: string): MemberSource {
  return () => {
    let members = byPage.get(pageId);
    if (!members) {
      members = callApi<{ pond: { id: string } }>('GET', `/pages/${encodeURIComponent(pageId)}`)
        .then((page) => createPondDirectory(page.pond.id).members())
        .catch((error: unknown) => {
          byPage.delete(pageId);
          throw error;
        });
      byPage.set(pageId, members);
    }
    return members;
  };
}
