/**
 * The editor's uploads: the files of one paste, drop or pick go up one after the other, each
 * with its progress, and each goes into the text where the batch was started as soon as it is
 * up (uploadPlacement.ts); batches started elsewhere run side by side. A refusal is kept, with
 * the file's name, until the person dismisses it; an upload that worked is announced for a
 * moment. UploadStatus.svelte shows all of it in the editor's chrome.
 */
import type { Editor } from '@tiptap/core';
import type { FileView } from '../files/fileViews.ts';
import { uploadFile } from './fileUploads.ts';
import { insertUploaded, placeAt, type UploadPlace } from './uploadPlacement.ts';

/** How long "… is uploaded" stays on screen. */
const DONE_NOTICE_MS = 6_000;

export interface UploadEntry {
  key: number;
  name: string;
  /** False while the files before it in its batch are still going up. */
  sending: boolean;
  loaded: number;
  total: number;
}

export interface UploadRefusal {
  key: number;
  name: string;
  /** What `uploadFile` rejected with; UploadStatus.svelte says it in words. */
  error: unknown;
}

export class EditorUploads {
  entries = $state<UploadEntry[]>([]);
  refusals = $state<UploadRefusal[]>([]);
  /** The name of the file that went in last, while its notice shows. */
  done = $state<string | null>(null);
  readonly #pageId: string;
  readonly #uploaded: (file: FileView) => void;
  #seq = 0;
  #doneTimer: ReturnType<typeof setTimeout> | null = null;

  /** `uploaded` hears of each file that went up (the attachments panel lists it). */
  constructor(pageId: string, uploaded: (file: FileView) => void) {
    this.#pageId = pageId;
    this.#uploaded = uploaded;
  }

  /** Uploads `files` into the text at `position` (of the editor's current document). */
  start = (editor: Editor, files: File[], position: number): void => {
    if (files.length === 0) return;
    const batch = files.map((file) => ({ file, key: ++this.#seq }));
    this.entries = [...this.entries, ...batch.map(({ file, key }) => ({ key, name: file.name, sending: false, loaded: 0, total: file.size }))];
    void this.#send(editor, batch, placeAt(editor.state, position));
  };

  dismiss = (): void => {
    this.refusals = [];
  };

  async #send(editor: Editor, batch: { file: File; key: number }[], startAt: UploadPlace): Promise<void> {
    let place = startAt;
    for (const { file, key } of batch) {
      this.#update(key, { sending: true });
      try {
        const uploaded = await uploadFile(this.#pageId, file, (loaded, total) => this.#update(key, { loaded, total }));
        if (!editor.isDestroyed) place = insertUploaded(editor, place, uploaded);
        this.#uploaded(uploaded);
        this.#announce(uploaded.name);
      } catch (error) {
        this.refusals = [...this.refusals, { key, name: file.name, error }];
      } finally {
        this.entries = this.entries.filter((entry) => entry.key !== key);
      }
    }
  }

  #update(key: number, change: Partial<UploadEntry>): void {
    this.entries = this.entries.map((entry) => (entry.key === key ? { ...entry, ...change } : entry));
  }

  #announce(name: string): void {
    this.done = name;
    if (this.#doneTimer) clearTimeout(this.#doneTimer);
    this.#doneTimer = setTimeout(() => (this.done = null), DONE_NOTICE_MS);
  }
}
