/** Ends the session, then shows the signed-out home page. Throws (an ApiRequestError) when the API refused or could not be reached. */
import { callApi } from '../api/apiClient.ts';

export async function signOut(): Promise<void> {
  await callApi('POST', '/auth/logout');
  window.location.assign('/');
}
