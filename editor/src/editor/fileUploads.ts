/**
 * Sending a file to a page (`POST /api/v1/pages/:pageId/files`, multipart with one part named
 * `file`) and saying in words why one was refused. XMLHttpRequest rather than fetch: only it
 * reports how much of the body has gone out, which the progress bar shows. The session cookie
 * travels with it (same origin), and so does the browser's Accept-Language.
 */
import { API_BASE, ApiRequestError, refusalOf } from '../api/apiClient.ts';
import { sizeInWords, type FileView } from '../files/fileViews.ts';
import type { Locale, Translate } from '../i18n/translator.ts';

/** How much of the file has been sent: `total` is the body's size (a little more than the file's). */
export type UploadProgress = (loaded: number, total: number) => void;

/** The uploaded file; rejects with an `ApiRequestError` (`network_error` when no answer came). */
export function uploadFile(pageId: string, file: File, onProgress: UploadProgress): Promise<FileView> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', `${API_BASE}/pages/${encodeURIComponent(pageId)}/files`);
    request.setRequestHeader('Accept', 'application/json');
    request.upload.addEventListener('progress', (event) => onProgress(event.loaded, event.lengthComputable ? event.total : file.size));
    request.addEventListener('load', () => {
      let payload: unknown;
      try {
        payload = JSON.parse(request.responseText);
      } catch {
        payload = undefined;
      }
      if (request.status === 201 && payload) resolve(payload as FileView);
      else reject(refusalOf(request.status, payload, request.getResponseHeader('Retry-After')));
    });
    request.addEventListener('error', () => reject(new ApiRequestError({ code: 'network_error', status: 0, message: '' })));
    const body = new FormData();
    body.append('file', file, file.name);
    request.send(body);
  });
}

/** Why `name` was not uploaded, in words: the refusal's own details where the API gives them. */
export function refusalInWords(error: unknown, name: string, t: Translate, locale: Locale): string {
  return t('upload.refused', { name, reason: reasonInWords(error, t, locale) });
}

function reasonInWords(error: unknown, t: Translate, locale: Locale): string {
  if (!(error instanceof ApiRequestError)) return t('upload.unexpected');
  const { details } = error;
  const extension = typeof details['extension'] === 'string' ? details['extension'] : '';
  const limit = typeof details['limit'] === 'number' ? sizeInWords(details['limit'], locale) : null;
  switch (error.code) {
    case 'upload_type_not_allowed':
      if (details['reason'] === 'content_mismatch') return t('upload.contentMismatch', { extension });
      if (details['reason'] === 'svg_rejected') return t('upload.svgRejected');
      if (details['reason'] === 'not_svg') return t('upload.notSvg');
      return extension ? t('upload.typeRefused', { extension }) : t('upload.noExtension');
    case 'quota_exceeded':
      if (details['quota'] === 'max_file_bytes') return limit ? t('upload.tooLarge', { limit }) : t('upload.tooLargeNoLimit');
      return limit ? t('upload.storageFull', { limit }) : t('upload.storageFullNoLimit');
    case 'forbidden':
      return t('upload.forbidden');
    case 'not_found':
      return t('upload.pageGone');
    case 'network_error':
      return t('upload.network');
    case 'unexpected_response':
      return t('upload.unexpected');
    default:
      // Another refusal (a rate limit, a malformed request): the API's own localized words.
      return error.message || t('upload.unexpected');
  }
}
