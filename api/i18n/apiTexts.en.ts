/**
 * English texts the API answers with besides error messages: field problems zod cannot see
 * (references that name nothing, tree positions), names of pseudo subjects, the legal pages'
 * frame. The German catalogue must have the same keys (its type enforces that).
 */
export const apiTextsEn = {
  'field.invalid_parent': 'Choose a page of this pond that is not in the trash and that you can read.',
  'field.invalid_sibling': 'Choose a page that sits next to the new place: same parent, not in the trash, readable, and not the page itself.',
  'field.index_out_of_range': 'The index is larger than the number of pages at that level.',
  'field.label_not_in_pond': 'Choose a label of this pond.',
  'field.labels_not_in_pond': 'Every label must belong to the pond of the page.',
  'field.nothing_to_change': 'Give a new name, colour or parent.',
  'field.too_many_labels': 'A page carries at most 50 labels.',
  'field.unknown_account': 'No account with this id exists.',
  'field.unknown_scope': 'This pond has no such label or page.',
  'subject.signed-in': 'All signed-in users',
  'subject.public': 'Everyone (public, without signing in)',
  'user.deleted': 'Deleted user',
  'feed.pond.subtitle': 'Recently changed pages',
  'feed.page.subtitle': 'Version history',
  'feed.version.auto': 'Version saved automatically',
  'feed.version.MANUAL': 'Version saved',
  'feed.version.pre_restore': 'Version saved before a restore',
  'legal.imprint': 'Imprint',
  'legal.privacy': 'Privacy policy',
  'legal.notConfigured': 'The operator of this instance has not filled in this page yet.',
  'transclusion.empty': 'This embedded page has no text yet.',
  'home.welcomeMarkdown':
    '# Welcome to {instance}\n\nA shared knowledge base: pages written together, linked with each other and kept in ponds. Pages shared publicly can be read by anyone, without an account.\n\n[Sign in](/login) to read and write the pages shared with you.',
} as const satisfies Record<string, string>;

export type ApiTextKey = keyof typeof apiTextsEn;
