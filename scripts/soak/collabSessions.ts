/**
 * The scripted editing sessions of soak:collab: one provider each, a unique marker and a
 * random burst of keystrokes at random places, sometimes a stretch offline, then a graceful
 * or an abrupt leave. A session keeps its Y.Doc after it leaves, so the soak can reconnect it
 * at the end, and records the clock its provider had acknowledged, every time the provider
 * reports nothing unsynced.
 */
import { HocuspocusProvider } from '@hocuspocus/provider';
import * as Y from 'yjs';
import { waitFor } from '../../api/testing/polling.ts';

export interface SoakSession {
  index: number;
  pageId: string;
  userId: string;
  /** Typed as one insert, so it stays in one piece: it must end up in the page exactly once. */
  marker: string;
  ydoc: Y.Doc;
  provider: HocuspocusProvider | null;
  /** The session's own clock at the last moment its provider had nothing unacknowledged. */
  ackedClock: number;
  keystrokes: number;
  wentOffline: boolean;
  leftAbruptly: boolean;
  /** Set when the session could not finish (a timeout): reported, never silently dropped. */
  problem: string | null;
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz ';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));


export const fullySynced = (provider: HocuspocusProvider) => provider.synced && provider.unsyncedChanges === 0;


/** The first paragraph's text, made when the page has none (as an editor's first keystroke would). */
function typingTarget(ydoc: Y.Doc): Y.XmlText {
  const fragment = ydoc.getXmlFragment('default');
  let paragraph = fragment.get(0);
  if (!(paragraph instanceof Y.XmlElement)) {
    paragraph = new Y.XmlElement('paragraph');
    fragment.insert(0, [paragraph]);
  }
  let text = (paragraph as Y.XmlElement).get(0);
  if (!(text instanceof Y.XmlText)) {
    text = new Y.XmlText();
    (paragraph as Y.XmlElement).insert(0, [text]);
  }
  return text as Y.XmlText;
}

const MARKER = /⟦[^⟧]*⟧|⟪[^⟫]*⟫/g;

/**
 * A random place to type at, never inside a marker: a marker only stays in one piece (and so
 * countable in the text) if no client ever types into it.
 */
function typingPosition(text: Y.XmlText, random: () => number): number {
  let position = Math.floor(random() * (text.length + 1));
  for (const match of text.toString().matchAll(MARKER)) {
    if (match.index < position && position < match.index + match[0].length) position = match.index + match[0].length;
  }
  return position;
}

/** Attaches a provider to the session's document and tracks what it acknowledged. */
export function connect(session: SoakSession, url: string, token: () => string): HocuspocusProvider {
  const provider = new HocuspocusProvider({ url, name: session.pageId, document: session.ydoc, token });
  provider.on('unsyncedChanges', ({ number }: { number: number }) => {
    // Nothing unacknowledged: every keystroke so far is in the log.
    if (number === 0) session.ackedClock = Y.getState(session.ydoc.store, session.ydoc.clientID);
  });
  session.provider = provider;
  return provider;
}

export interface SessionScript {
  url: string;
  token: () => string;
  random: () => number;
  /** How long a session waits for a (re)connection or its acks before it gives up. */
  patienceMs: number;
}

export async function runSession(session: SoakSession, script: SessionScript): Promise<void> {
  const { random } = script;
  const provider = connect(session, script.url, script.token);
  const type = (count: number) => {
    for (let key = 0; key < count; key += 1) {
      const text = typingTarget(session.ydoc);
      text.insert(typingPosition(text, random), LETTERS[Math.floor(random() * LETTERS.length)]!);
      session.keystrokes += 1;
    }
  };
  try {
    await waitFor(() => provider.synced, script.patienceMs, `session ${session.index}: first sync`, { intervalMs: 2 });
    const target = typingTarget(session.ydoc);
    target.insert(typingPosition(target, random), session.marker);
    const bursts = 1 + Math.floor(random() * 3);
    for (let burst = 0; burst < bursts; burst += 1) {
      const keys = 5 + Math.floor(random() * 30);
      for (let key = 0; key < keys; key += 1) {
        type(1);
        await sleep(Math.floor(random() * 15));
      }
      if (random() < 0.2) {
        // A stretch offline: typed meanwhile, sent on reconnect.
        session.wentOffline = true;
        provider.disconnect();
        // connect() does nothing while the socket still counts as open: wait for the close.
        await waitFor(() => !provider.synced, script.patienceMs, `session ${session.index}: disconnect`, { intervalMs: 2 });
        type(3 + Math.floor(random() * 8));
        await sleep(100 + Math.floor(random() * 900));
        void provider.connect();
      }
      await sleep(Math.floor(random() * 500));
    }
    if (random() < 0.2) {
      session.leftAbruptly = true;
    } else {
      await waitFor(() => fullySynced(provider), script.patienceMs, `session ${session.index}: final acks`, { intervalMs: 2 });
    }
  } catch (error) {
    session.problem = (error as Error).message;
  } finally {
    provider.destroy();
    session.provider = null;
  }
}
