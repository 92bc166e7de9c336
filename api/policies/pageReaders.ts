/**
 * Which of many users may read one page: the notification fan-out's question for every
 * watcher of a page. One pond's access data serves all of them. A user no grant of the pond
 * names (nor a Site Admin) resolves exactly like any other signed-in user, so that verdict is
 * computed once and shared; only the named ones are resolved one by one. This is grant
 * interpretation, so it lives here (api/policies/grantReaders.test.ts).
 */
import { SubjectAccess, type PageState, type PondAccessData } from './grantResolution.ts';

export interface ReaderCandidate {
  userId: string;
  isSiteAdmin: boolean;
}

/** The candidates' ids who may read `page` now, in the order given. */
export function readersOfPage(data: PondAccessData, page: PageState, candidates: readonly ReaderCandidate[]): string[] {
  const named = new Set(data.grants.flatMap((grant) => (grant.subjectUserId ? [grant.subjectUserId] : [])));
  let anySignedIn: boolean | undefined;
  const readers: string[] = [];
  for (const { userId, isSiteAdmin } of candidates) {
    let allowed: boolean;
    if (isSiteAdmin || named.has(userId)) {
      allowed = new SubjectAccess(data, { userId, signedIn: true, isSiteAdmin }).page(page, 'read').allowed;
    } else {
      anySignedIn ??= new SubjectAccess(data, { userId, signedIn: true, isSiteAdmin: false }).page(page, 'read').allowed;
      allowed = anySignedIn;
    }
    if (allowed) readers.push(userId);
  }
  return readers;
}
