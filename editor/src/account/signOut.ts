/**
 * Ends the session, deletes this browser's offline copies of pages (a failure there does not
 * stop the sign-out), then shows the signed-out home page. Throws (an ApiRequestError) when
 * the API refused or could not be reached; then nothing is deleted.
 */
import { callApi } from '../api/apiClient.ts';
import { clearOfflineCopies } from '../editor/offlineCopies.ts';

export async function signOut(): Promise<void> {
  await callApi('POST', '/auth/logout');
  await clearOfflineCopies();
  window.location.assign('/');
}
