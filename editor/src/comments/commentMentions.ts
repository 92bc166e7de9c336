/**
 * Mentions in a comment's text field. The field shows a mention as people read it, `@Vera
 * Müller`; the body sent to the API carries it in the page dialect's Markdown,
 * `[@Vera Müller](dt-mention:<userId>)` (content-pipeline/markdown/dialect.ts), which the API
 * renders as a chip and notifies. The form remembers which names were chosen from the list:
 * only those become mentions, and a name edited away is plain text again.
 */
import type { MemberEntry } from '../editor/pondDirectory.ts';

export const MENTION_SCHEME = 'dt-mention:';
/** Members offered at once, as the page editor's list does. */
export const MENTION_CHOICES = 8;

/** What is typed after an `@` that starts a word: the query and where it stands in the text. */
export interface MentionQuery {
  /** Index of the `@`. */
  start: number;
  /** Index after the query (the caret). */
  end: number;
  query: string;
}

/** A chosen mention: the name shown in the field and whom it names. */
export interface ChosenMention {
  label: string;
  userId: string;
}

/** The `@query` the caret stands at the end of, if any: `@` at a line start or after a space or an opening bracket, no spaces in the query. */
export function mentionQueryAt(text: string, caret: number): MentionQuery | null {
  const before = text.slice(0, caret);
  const match = /(^|[\s([{"'„“])@([\p{L}\p{M}\p{N}._-]{0,40})$/u.exec(before);
  if (!match) return null;
  const query = match[2] ?? '';
  return { start: caret - query.length - 1, end: caret, query };
}

/** Members whose display name or username contains the query (case-insensitive), those starting with it first. */
export function matchMembers(members: readonly MemberEntry[], query: string, limit = MENTION_CHOICES): MemberEntry[] {
  const wanted = query.trim().toLocaleLowerCase();
  const scored = members
    .map((member) => {
      const names = [member.displayName.toLocaleLowerCase(), member.username.toLocaleLowerCase()];
      const words = names.flatMap((name) => name.split(/\s+/));
      const score = !wanted ? 1 : words.some((word) => word.startsWith(wanted)) ? 0 : names.some((name) => name.includes(wanted)) ? 1 : 2;
      return { member, score };
    })
    .filter((entry) => entry.score < 2);
  scored.sort((a, b) => a.score - b.score || a.member.displayName.localeCompare(b.member.displayName));
  return scored.slice(0, limit).map((entry) => entry.member);
}

/** The text with the query replaced by `@Label ` and where the caret goes after it. */
export function insertMention(text: string, at: MentionQuery, label: string): { text: string; caret: number } {
  const inserted = `@${label} `;
  const rest = text.slice(at.end).replace(/^ /, '');
  return { text: text.slice(0, at.start) + inserted + rest, caret: at.start + inserted.length };
}

const escapeLabel = (label: string) => label.replace(/[\\[\]]/g, (character) => `\\${character}`);
const unescapeLabel = (label: string) => label.replace(/\\([\\[\]])/g, '$1');
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The body to send: each `@Label` of a chosen mention (not inside a longer word) as the
 * mention's Markdown. Longer labels first, so "@Ann Lee" is not taken for "@Ann".
 */
export function bodyWithMentions(text: string, chosen: readonly ChosenMention[]): string {
  const byLabel = new Map(chosen.map((mention) => [mention.label, mention.userId]));
  if (byLabel.size === 0) return text;
  const labels = [...byLabel.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const pattern = new RegExp(`(^|[^\\p{L}\\p{M}\\p{N}_\\]])@(${labels.join('|')})(?![\\p{L}\\p{M}\\p{N}_])`, 'gu');
  return text.replace(pattern, (_all, lead: string, label: string) => `${lead}[@${escapeLabel(label)}](${MENTION_SCHEME}${byLabel.get(label)})`);
}

/** A stored body made editable again: its mentions as `@Label`, and which they were. */
export function editableText(body: string): { text: string; chosen: ChosenMention[] } {
  const chosen: ChosenMention[] = [];
  const text = body.replace(/\[@((?:\\.|[^\]\\])*)\]\(dt-mention\\?:([0-9a-fA-F-]{36})\)/g, (_all, label: string, userId: string) => {
    const plain = unescapeLabel(label);
    if (!chosen.some((mention) => mention.label === plain)) chosen.push({ label: plain, userId });
    return `@${plain}`;
  });
  return { text, chosen };
}
