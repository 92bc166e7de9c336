/**
 * The benches' deterministic long page: sections of prose with bold words, wikilinks (at most
 * 200), lists, tables and 5 transclusions; with `mentionIds`, one mention per section.
 */
export const BENCH_WORDS = ['teich', 'dorf', 'wasser', 'ente', 'schilf', 'brücke', 'wiese', 'frosch', 'libelle', 'ufer', 'seerose', 'karpfen'];

export function wordPageMarkdown(words: number, mentionIds: readonly string[] = []): string {
  const lines: string[] = ['# Der Dorfteich', ''];
  let count = 0;
  let links = 0;
  let section = 0;
  while (count < words) {
    section += 1;
    lines.push(`## Abschnitt ${section}`, '');
    for (let paragraph = 0; paragraph < 3; paragraph += 1) {
      const sentence: string[] = [];
      for (let i = 0; i < 60; i += 1) {
        const word = BENCH_WORDS[(section * 7 + paragraph * 13 + i) % BENCH_WORDS.length]!;
        if (i % 12 === 5 && links < 200) {
          sentence.push(`[[seite-${links}|${word}]]`);
          links += 1;
        } else if (i === 30 && paragraph === 1 && mentionIds.length > 0) {
          const id = mentionIds[section % mentionIds.length]!;
          sentence.push(`[@Nutzer ${section % mentionIds.length}](dt-mention:${id})`);
        } else sentence.push(i % 17 === 3 ? `**${word}**` : word);
      }
      count += sentence.length;
      lines.push(`${sentence.join(' ')}.`, '');
    }
    lines.push('- erstens mit _Betonung_', '- zweitens', '  - verschachtelt', '');
    if (section % 3 === 0) lines.push('| Art | Anzahl |', '| --- | ---: |', '| Ente | 12 |', '| Frosch | 40 |', '');
    if (section % 5 === 0 && section <= 25) lines.push(`![[eingebettet-${section / 5}]]`, '');
  }
  return lines.join('\n');
}
