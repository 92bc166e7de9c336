import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { ApiRequestError } from '../api/apiClient.ts';
import { createTranslator } from '../i18n/translator.ts';
import { refusalInWords, uploadFile } from './fileUploads.ts';

/** Just enough of XMLHttpRequest for `uploadFile`: what was sent, and an answer played back. */
class FakeRequest extends EventTarget {
  static last: FakeRequest | null = null;
  method = '';
  url = '';
  headers: Record<string, string> = {};
  body: FormData | null = null;
  status = 0;
  responseText = '';
  responseHeaders: Record<string, string> = {};
  readonly upload = new EventTarget();

  constructor() {
    super();
    FakeRequest.last = this;
  }

  open(method: string, url: string): void {
    this.method = method;
    this.url = url;
  }

  setRequestHeader(name: string, value: string): void {
    this.headers[name] = value;
  }

  getResponseHeader(name: string): string | null {
    return this.responseHeaders[name] ?? null;
  }

  send(body: FormData): void {
    this.body = body;
  }

  progress(loaded: number, total: number): void {
    this.upload.dispatchEvent(Object.assign(new Event('progress'), { loaded, total, lengthComputable: true }));
  }

  answer(status: number, payload: unknown, headers: Record<string, string> = {}): void {
    this.status = status;
    this.responseText = typeof payload === 'string' ? payload : JSON.stringify(payload);
    this.responseHeaders = headers;
    this.dispatchEvent(new Event('load'));
  }
}

const original = globalThis.XMLHttpRequest;
afterEach(() => {
  globalThis.XMLHttpRequest = original;
});

function sendWithFake(): { request: () => FakeRequest; result: Promise<unknown>; progress: [number, number][] } {
  globalThis.XMLHttpRequest = FakeRequest as unknown as typeof XMLHttpRequest;
  const progress: [number, number][] = [];
  const file = new File([new Uint8Array([137, 80, 78, 71])], 'dot.png', { type: 'image/png' });
  const result = uploadFile('page-1', file, (loaded, total) => progress.push([loaded, total]));
  result.catch(() => undefined);
  return { request: () => FakeRequest.last!, result, progress };
}

describe('uploadFile', () => {
  test('posts the file as the multipart part `file` and reports progress and the created file', async () => {
    const { request, result, progress } = sendWithFake();
    assert.equal(request().method, 'POST');
    assert.equal(request().url, '/api/v1/pages/page-1/files');
    assert.equal(request().headers['Accept'], 'application/json');
    const part = request().body!.get('file') as File;
    assert.equal(part.name, 'dot.png');
    assert.equal(part.size, 4);
    request().progress(2, 200);
    request().progress(200, 200);
    const view = { id: 'f1', name: 'dot.png', url: '/api/v1/media/f1' };
    request().answer(201, view);
    assert.deepEqual(await result, view);
    assert.deepEqual(progress, [[2, 200], [200, 200]]);
  });

  test('a refusal rejects with its code and details; no answer at all is a network error', async () => {
    const refused = sendWithFake();
    refused.request().answer(415, { error: { code: 'upload_type_not_allowed', message: 'This file type is not allowed.', details: { reason: 'extension', extension: 'exe' } } });
    await assert.rejects(refused.result, (error: unknown) => error instanceof ApiRequestError && error.code === 'upload_type_not_allowed' && error.status === 415 && error.details['extension'] === 'exe');

    const garbled = sendWithFake();
    garbled.request().answer(502, '<html>Bad gateway</html>');
    await assert.rejects(garbled.result, (error: unknown) => error instanceof ApiRequestError && error.code === 'unexpected_response' && error.status === 502);

    const cut = sendWithFake();
    cut.request().dispatchEvent(new Event('error'));
    await assert.rejects(cut.result, (error: unknown) => error instanceof ApiRequestError && error.code === 'network_error');
  });
});

describe('refusals in words', () => {
  const en = createTranslator('en');
  const de = createTranslator('de');
  const refusal = (code: string, status: number, details: Record<string, unknown> = {}, message = 'Server words.') =>
    new ApiRequestError({ code: code as ApiRequestError['code'], status, message, details });

  test('each refusal names the file and says why, in English and German', () => {
    const cases: [ApiRequestError, string, string][] = [
      [refusal('upload_type_not_allowed', 415, { reason: 'extension', extension: 'exe' }), '“setup.exe” was not uploaded: files of type .exe are not allowed here.', '„setup.exe“ wurde nicht hochgeladen: Dateien vom Typ .exe sind hier nicht erlaubt.'],
      [refusal('upload_type_not_allowed', 415, { reason: 'extension', extension: '' }), '“setup.exe” was not uploaded: files without an extension (such as .pdf) are not allowed here.', '„setup.exe“ wurde nicht hochgeladen: Dateien ohne Endung (wie .pdf) sind hier nicht erlaubt.'],
      [refusal('upload_type_not_allowed', 415, { reason: 'content_mismatch', extension: 'png' }), '“setup.exe” was not uploaded: its content is not that of a .png file.', '„setup.exe“ wurde nicht hochgeladen: Ihr Inhalt ist nicht der einer .png-Datei.'],
      [refusal('upload_type_not_allowed', 415, { reason: 'svg_rejected', extension: 'svg' }), '“setup.exe” was not uploaded: SVG files are not allowed on this site.', '„setup.exe“ wurde nicht hochgeladen: SVG-Dateien sind auf dieser Website nicht erlaubt.'],
      [refusal('quota_exceeded', 413, { quota: 'max_file_bytes', limit: 10 * 1024 * 1024 }), '“setup.exe” was not uploaded: it is larger than the 10 MB a file may have.', '„setup.exe“ wurde nicht hochgeladen: Sie ist größer als die 10 MB, die eine Datei haben darf.'],
      [refusal('quota_exceeded', 413, { quota: 'storage_bytes', limit: 1.5 * 1024 ** 3 }), '“setup.exe” was not uploaded: the pond’s storage (1.5 GB in all) has no room left for it.', '„setup.exe“ wurde nicht hochgeladen: Im Speicher des Teichs (1,5 GB insgesamt) ist dafür kein Platz mehr.'],
      [refusal('forbidden', 403), '“setup.exe” was not uploaded: you may not add files to this page.', '„setup.exe“ wurde nicht hochgeladen: Du darfst dieser Seite keine Dateien hinzufügen.'],
      [refusal('not_found', 404), '“setup.exe” was not uploaded: this page no longer exists.', '„setup.exe“ wurde nicht hochgeladen: Diese Seite gibt es nicht mehr.'],
      [refusal('network_error', 0, {}, ''), '“setup.exe” was not uploaded: the server could not be reached. Check your connection and try again.', '„setup.exe“ wurde nicht hochgeladen: Der Server ist nicht erreichbar. Prüfe deine Verbindung und versuche es erneut.'],
      [refusal('rate_limited', 429, {}, 'Too many requests.'), '“setup.exe” was not uploaded: Too many requests.', '„setup.exe“ wurde nicht hochgeladen: Too many requests.'],
    ];
    for (const [error, english, german] of cases) {
      assert.equal(refusalInWords(error, 'setup.exe', en, 'en'), english);
      assert.equal(refusalInWords(error, 'setup.exe', de, 'de'), german);
    }
    assert.equal(refusalInWords(new Error('boom'), 'a.pdf', en, 'en'), '“a.pdf” was not uploaded: something went wrong. Please try again.');
  });
});
