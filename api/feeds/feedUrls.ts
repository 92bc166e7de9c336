/**
 * The addresses a feed names: the instance's public origin (the base URL the setup wizard
 * saved, else `BASE_URL`, as mail links pick it), the human URLs of ponds and pages, and the
 * feed URLs themselves. A feed URL here never carries a token: `rel=self` must not echo a secret;
 * only the settings page builds token URLs, for its owner, once.
 */
import type { AppServices } from '../services.ts';
import { getSetting } from '../settings/instanceSettings.ts';

/** The public origin, without a trailing slash. */
export async function publicBaseUrl(services: Pick<AppServices, 'config'>): Promise<string> {
  return (await getSetting('instance.baseUrl')) ?? services.config.baseUrl;
}

const segment = (slug: string) => encodeURIComponent(slug);

export function pondUrl(baseUrl: string, pondSlug: string): string {
  return `${baseUrl}/${segment(pondSlug)}`;
}

export function pageUrl(baseUrl: string, pondSlug: string, pageSlug: string): string {
  return `${baseUrl}/${segment(pondSlug)}/${segment(pageSlug)}`;
}

/** `…/api/v1/public/<pond>/feed.xml`: recently changed pages. */
export function pondFeedUrl(baseUrl: string, pondSlug: string): string {
  return `${baseUrl}/api/v1/public/${segment(pondSlug)}/feed.xml`;
}

/** `…/api/v1/public/<pond>/<page>/feed.xml`: the page's version history. */
export function pageFeedUrl(baseUrl: string, pondSlug: string, pageSlug: string): string {
  return `${baseUrl}/api/v1/public/${segment(pondSlug)}/${segment(pageSlug)}/feed.xml`;
}

/** A feed URL for a token's owner (the settings page shows it once, right after creation). */
export function withFeedToken(feedUrl: string, token: string): string {
  return `${feedUrl}?token=${encodeURIComponent(token)}`;
}
