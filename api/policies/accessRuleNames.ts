/**
 * The names an access rule refers to (user, label path, page title), for the access-rule
 * list and for the grant that decides a verdict (accessExplanation.ts).
 */
import type { Locale } from '../i18n/locale.ts';
import { Label, Page, User, type Grant, type Pond } from '../models/index.ts';
import { presentAccessRule, type AccessRuleNames, type AccessRuleView } from '../presenters/grantPresenter.ts';

/** The names a batch of grants refers to: at most three queries, whatever the batch size. */
async function loadAccessRuleNames(pond: Pond, grants: readonly Grant[]): Promise<AccessRuleNames> {
  const userIds = new Set<string>();
  const pageIds = new Set<string>();
  let anyLabel = false;
  for (const grant of grants) {
    if (grant.subjectUserId) userIds.add(grant.subjectUserId);
    if (grant.scopePageId) pageIds.add(grant.scopePageId);
    if (grant.scopeLabelId) anyLabel = true;
  }
  const [users, labels, pages] = await Promise.all([
    userIds.size > 0 ? User.findAll({ where: { id: [...userIds] }, attributes: ['id', 'username', 'displayName'] }) : [],
    // A label's path needs its ancestors: the whole (small) label tree of the pond in one go.
    anyLabel ? Label.findAll({ where: { pondId: pond.id }, attributes: ['id', 'parentId', 'name'] }) : [],
    pageIds.size > 0 ? Page.findAll({ where: { id: [...pageIds], pondId: pond.id }, attributes: ['id', 'title'] }) : [],
  ]);
  return {
    pondName: pond.name,
    users: new Map(users.map((user) => [user.id, { displayName: user.displayName, username: user.username }])),
    labelPaths: labelPaths(labels),
    pageTitles: new Map(pages.map((page) => [page.id, page.title])),
  };
}

function labelPaths(labels: readonly Label[]): Map<string, string> {
  const byId = new Map(labels.map((label) => [label.id, label]));
  const paths = new Map<string, string>();
  for (const label of labels) {
    const names: string[] = [];
    const visited = new Set<string>();
    for (let current: Label | undefined = label; current && !visited.has(current.id); current = current.parentId ? byId.get(current.parentId) : undefined) {
      visited.add(current.id);
      names.unshift(current.name);
    }
    paths.set(label.id, names.join(' / '));
  }
  return paths;
}

export async function describeGrants(pond: Pond, grants: readonly Grant[], locale: Locale): Promise<AccessRuleView[]> {
  const names = await loadAccessRuleNames(pond, grants);
  return grants.map((grant) => presentAccessRule(grant, names, locale));
}
