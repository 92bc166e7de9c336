/**
 * Which of the scripts a page loaded belong to its editor island: the island's component chunk
 * and every loaded chunk it reaches through imports (static, dynamic, Vite's preload lists),
 * minus every chunk the page's other islands reach the same way (the shell: the Svelte
 * runtime, the API client, the translator, the sidebar…). What is left is what the editor adds
 * to the page; what it shares with the shell is reported beside it.
 */
import type { RouteScripts, ShippedScript } from './uiBrowser.ts';

export interface IslandScripts {
  /** Chunks only the editor island reaches. */
  own: ShippedScript[];
  /** Chunks the editor reaches that the page's other islands reach too. */
  shared: ShippedScript[];
  /** Component files of the other islands on the page. */
  others: string[];
}

/** Every `_astro` chunk a script's text names (`from"./x.js"`, `import("./x.js")`, `"_astro/x.js"` in a preload list). */
function chunksNamed(text: string): string[] {
  return [...text.matchAll(/["'`](?:\.\/|\/?_astro\/)([\w.~-]+\.js)["'`]/g)].map((match) => `/_astro/${match[1]}`);
}

function reachable(from: readonly string[], imports: Map<string, string[]>): Set<string> {
  const seen = new Set<string>();
  const queue = [...from];
  while (queue.length > 0) {
    const url = queue.pop()!;
    if (seen.has(url) || !imports.has(url)) continue;
    seen.add(url);
    queue.push(...imports.get(url)!);
  }
  return seen;
}

/** `origin`: where the loaded scripts are fetched again to read their imports; `component`: a substring of the editor island's component URL. */
export async function editorIslandScripts(origin: string, route: RouteScripts, component: string): Promise<IslandScripts> {
  const imports = new Map<string, string[]>();
  for (const script of route.scripts) {
    const response = await fetch(`${origin}${script.url}`);
    if (!response.ok) throw new Error(`${script.url} answered ${response.status}`);
    imports.set(script.url, chunksNamed(await response.text()));
  }
  const editor = route.islands.find((island) => island.component.includes(component));
  if (!editor) throw new Error(`no island with ${component} on the page (islands: ${route.islands.map((island) => island.component).join(', ')})`);
  const others = route.islands.filter((island) => island !== editor).map((island) => island.component);
  const editorChunks = reachable([editor.component], imports);
  const shellChunks = reachable(others, imports);
  const byUrl = new Map(route.scripts.map((script) => [script.url, script]));
  const pick = (keep: (url: string) => boolean) => [...editorChunks].filter(keep).map((url) => byUrl.get(url)!);
  return { own: pick((url) => !shellChunks.has(url)), shared: pick((url) => shellChunks.has(url)), others };
}
