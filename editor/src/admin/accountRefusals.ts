/**
 * An account action's refusal in words for the `/admin/users` screen, naming the account it
 * concerns: acting on one's own account and removing the last Site Admin get sentences that
 * say what to do instead; anything else is the API's own localized message.
 */
import { ApiRequestError } from '../api/apiClient.ts';
import { describeFailure } from '../forms/formFailure.ts';
import type { Translate } from '../i18n/translator.ts';

export function refusalText(error: unknown, username: string, t: Translate): string {
  if (error instanceof ApiRequestError && error.code === 'cannot_modify_self') return t('adminUsers.refusedSelf');
  if (error instanceof ApiRequestError && error.code === 'last_site_admin') return t('adminUsers.refusedLastAdmin', { username });
  return t('adminUsers.refusedOther', { username, message: describeFailure(error, t).message });
}
