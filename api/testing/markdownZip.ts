/**
 * Reading a pond's Markdown ZIP back in tests (the internal export route's and the public
 * REST API's `export.zip`): its entries with yauzl, and one page's front matter and body.
 */
import assert from 'node:assert/strict';
import yauzl from 'yauzl';

export interface ZipEntry {
  name: string;
  text: string;
  bytes: Buffer;
}

export function readZip(bytes: Buffer | Uint8Array): Promise<ZipEntry[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(Buffer.from(bytes), { lazyEntries: true }, (error, zip) => {
      if (error) return reject(error);
      const entries: ZipEntry[] = [];
      zip.on('error', reject);
      zip.on('end', () => resolve(entries));
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('error', reject);
          stream.on('end', () => {
            const bytes = Buffer.concat(chunks);
            entries.push({ name: entry.fileName, text: bytes.toString('utf8'), bytes });
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

/** The front matter's fields (each value is JSON, which is YAML) and the body after it. */
export function parsePage(text: string): { fields: Record<string, unknown>; body: string } {
  const match = /^---\n([\s\S]*?)\n---\n\n([\s\S]*)$/.exec(text);
  assert.ok(match, `no front matter in ${JSON.stringify(text.slice(0, 80))}`);
  const fields: Record<string, unknown> = {};
  for (const line of match[1]!.split('\n')) {
    const separator = line.indexOf(': ');
    fields[line.slice(0, separator)] = JSON.parse(line.slice(separator + 2));
  }
  return { fields, body: match[2]! };
}

/** An attachment's entry: `attachments/<file id>[-<name>].<extension>`. */
export const ATTACHMENT_ENTRY = /^attachments\/[0-9a-f-]{36}(?:-[a-z0-9-]+)?\.[a-z0-9]{1,16}$/;

/**
 * The archive's pages by file name; asserts the names are unique, the pages flat and every
 * other entry an attachment.
 */
export async function zipPages(bytes: Buffer | Uint8Array): Promise<Map<string, { fields: Record<string, unknown>; body: string }>> {
  const entries = await readZip(bytes);
  const names = entries.map((entry) => entry.name);
  assert.equal(new Set(names).size, names.length, 'names are unique');
  for (const name of names) assert.ok(/^[a-z0-9-]+\.md$/.test(name) || ATTACHMENT_ENTRY.test(name), `flat pages and attachments only: ${name}`);
  return new Map(entries.filter((entry) => entry.name.endsWith('.md') && !entry.name.includes('/')).map((entry) => [entry.name, parsePage(entry.text)]));
}
