/**
 * Uploads as a browser sends them (`multipart/form-data`, part `file`), with the session
 * cookie and Origin of a TestClient; and small real files to upload.
 */
import type { TestClient, TestResponse } from './testClient.ts';

/** A real 1×1 PNG (a red pixel). */
export const TINY_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');
/** The start of a real PDF: enough for the sniffer. */
export const TINY_PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

export interface UploadOptions {
  /** The multipart part's name (the route takes `file`). */
  field?: string;
  /** A cookie-less, Origin-less request when false. */
  signedIn?: boolean;
}

export async function uploadFile(client: TestClient, pageId: string, name: string, bytes: Uint8Array | string, options: UploadOptions = {}): Promise<TestResponse> {
  const form = new FormData();
  form.append(options.field ?? 'file', new Blob([new Uint8Array(typeof bytes === 'string' ? Buffer.from(bytes) : bytes)]), name);
  const headers: Record<string, string> = {};
  if (options.signedIn !== false) {
    if (client.cookies.size > 0) headers.cookie = [...client.cookies].map(([key, value]) => `${key}=${value}`).join('; ');
    headers.origin = client.baseUrl;
  }
  const response = await fetch(new URL(`/api/v1/pages/${pageId}/files`, client.baseUrl), { method: 'POST', headers, body: form });
  const text = await response.text();
  let body: any = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  return { status: response.status, headers: response.headers, body, text };
}
