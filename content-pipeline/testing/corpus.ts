/**
 * The round-trip corpus: named Markdown documents in our dialect (content-pipeline/README.md)
 * that together cover every node and mark, plus the cases that break converters — backticks
 * in plugin data, pipes and brackets in wikilink text, lists inside lists, quotes and sections,
 * marks inside tables, unicode, empty nodes, escaped Markdown-looking text. roundTrip.test.ts
 * runs every entry Markdown → document → Markdown → document and through Yjs.
 */

export type CorpusEntry = { name: string; markdown: string };

/** Lines joined with '\n', so each entry reads like the file it stands for. */
const lines = (...parts: string[]): string => parts.join('\n');

export const corpus: readonly CorpusEntry[] = [
  // Paragraphs and headings
  { name: 'plain-paragraph', markdown: 'Hello pond.' },
  { name: 'paragraphs', markdown: lines('First paragraph,', 'soft-wrapped onto a second line.', '', 'Second paragraph.') },
  { name: 'headings-every-level', markdown: lines('# One', '', '## Two', '', '### Three', '', '#### Four', '', '##### Five', '', '###### Six') },
  { name: 'headings-repeated', markdown: lines('# Notes', '', '## Notes', '', 'Text.', '', '## Notes', '', '### Notes-2', '', '# notes') },
  { name: 'heading-with-marks-and-links', markdown: lines('## A **bold**, *italic* and `code` heading', '', '### See [[other-page|the other page]] and [the web](https://example.org)') },
  { name: 'heading-punctuation', markdown: lines('## C# & C++ — what? (part 1)', '', '## Ünïcödé heading 🙂', '', '## ¿¡!?') },
  { name: 'setext-headings', markdown: lines('Big title', '=========', '', 'Smaller title', '-------------', '', 'Body.') },
  { name: 'empty-heading', markdown: lines('#', '', 'After an empty heading.') },

  // Marks
  { name: 'every-mark', markdown: '*italic* **bold** ~~strike~~ `code` [link](https://example.org) ***bold italic***' },
  { name: 'nested-marks', markdown: '**bold with *italic* inside** and ~~struck **bold** text~~ and *italic `code`*' },
  { name: 'underscore-emphasis', markdown: '_italic_ __bold__ snake_case_word and a_b_c stay text' },
  { name: 'single-tilde-strike', markdown: '~one tilde~ and ~~two tildes~~' },
  { name: 'code-span-backticks', markdown: 'Code ``with ` one backtick`` and ``` `` two ``` and `` `edge` ``.' },
  { name: 'links-titles-and-autolinks', markdown: lines('[titled](https://example.org/a?b=1&c=2 "A title") and <https://auto.example.org/x>', '', 'A literal https://bare.example.com/path and www.example.net and mail <mailto:someone@example.org>.') },
  { name: 'link-with-marks-inside', markdown: '[**bold** and *italic* link text](https://example.org/path) after' },
  { name: 'link-url-parentheses-and-spaces', markdown: '[wiki](https://en.wikipedia.org/wiki/Pond_(water)) and [spaced](<https://example.org/a b>)' },
  { name: 'reference-links', markdown: lines('See [the docs][docs] and [docs].', '', '[docs]: https://example.org/docs "Docs"') },
  { name: 'hard-breaks', markdown: lines('line one with two spaces  ', 'line two with a backslash\\', 'line three') },

  // Lists
  { name: 'bullet-list', markdown: lines('- apples', '- pears', '- plums') },
  { name: 'ordered-list-start', markdown: lines('3. three', '4. four', '5. five') },
  { name: 'ordered-list-parenthesis', markdown: lines('1) first', '2) second') },
  { name: 'nested-lists-mixed', markdown: lines('- fruit', '  1. apples', '  2. pears', '     - conference', '     - williams', '- vegetables', '  - leeks') },
  { name: 'deeply-nested-list', markdown: lines('- one', '  - two', '    - three', '      - four', '        - five', '          - six') },
  { name: 'loose-list-with-paragraphs', markdown: lines('1. First item.', '', '   Second paragraph of the first item.', '', '2. Second item.', '', '   > quoted inside an item', '', '   ```', '   code inside an item', '   ```') },
  { name: 'list-in-blockquote', markdown: lines('> Shopping:', '>', '> - milk', '> - eggs', '>   - brown', '>', '> 1. first', '> 2. second') },
  { name: 'empty-list-items', markdown: lines('-', '- b', '-', '', 'after') },
  { name: 'task-list', markdown: lines('- [ ] open task', '- [x] done task', '- [X] done with capital X') },
  { name: 'task-list-nested', markdown: lines('- [ ] parent', '  - [x] child done', '  - [ ] child open', '    - [x] grandchild', '- [x] second parent') },
  { name: 'task-list-inside-bullets', markdown: lines('- plain item', '  - [ ] task under a bullet', '  - [x] another') },
  { name: 'task-and-bullet-items-mixed', markdown: lines('- [ ] a task', '- not a task', '- [x] a done task') },
  { name: 'bullet-list-loose', markdown: lines('- apples', '', '- pears', '', '- plums') },
  { name: 'ordered-list-loose', markdown: lines('7. seven', '', '8. eight') },
  { name: 'task-list-loose', markdown: lines('- [ ] open task', '', '- [x] done task') },
  { name: 'task-and-bullet-items-mixed-loose', markdown: lines('- [ ] a task', '', '- not a task', '- [x] a done task') },
  { name: 'tight-list-in-loose-list', markdown: lines('- fruit', '  - apples', '  - pears', '', '- vegetables', '  1. leeks', '  2. beans') },
  { name: 'loose-list-in-tight-list', markdown: lines('1. fruit', '   - [x] apples', '', '   - [ ] pears', '2. vegetables') },
  { name: 'tight-list-item-with-code-and-quote', markdown: lines('- item', '  ```', '  code', '  ```', '  > quoted', '- next') },
  { name: 'task-with-marks-and-links', markdown: lines('- [x] **ship** the [[release-notes|release notes]] to [@Ada](dt-mention:user-ada)', '- [ ] read <https://example.org>') },

  // Blockquotes
  { name: 'blockquote-nested', markdown: lines('> outer', '>', '> > inner', '> >', '> > > innermost') },
  { name: 'blockquote-with-heading-and-code', markdown: lines('> ## Quoted heading', '>', '> ```js', '> console.log("quoted");', '> ```', '>', '> ---') },
  { name: 'blockquote-lazy-continuation', markdown: lines('> first line', 'lazy second line', '', 'outside') },

  // Code blocks
  { name: 'code-block-language', markdown: lines('```typescript', 'const pond: string = "Dorfteich";', '```') },
  { name: 'code-block-no-language', markdown: lines('```', 'plain code', '  indented inside', '```') },
  { name: 'code-block-with-fences-inside', markdown: lines('````markdown', 'Here is a fence:', '', '```js', 'alert(1)', '```', '````') },
  { name: 'code-block-tildes', markdown: lines('~~~python', 'print("~~~ and ```")', '~~~') },
  { name: 'code-block-indented', markdown: lines('Paragraph.', '', '    indented code', '    second line') },
  { name: 'code-block-empty', markdown: lines('```', '```', '', '```rust', '```') },
  { name: 'code-block-blank-lines', markdown: lines('```', '', 'between blank lines', '', '', '```') },
  { name: 'code-block-html-and-markdown', markdown: lines('```html', '<script>alert("x")</script>', '**not bold** [[not-a-link]]', '```') },

  // Horizontal rules
  { name: 'horizontal-rules', markdown: lines('above', '', '---', '', '***', '', '___', '', 'below') },

  // Tables
  { name: 'table-basic', markdown: lines('| Name | Kind |', '| --- | --- |', '| Basil | herb |', '| Leek | vegetable |') },
  { name: 'table-inline-marks', markdown: lines('| Mark | Example |', '| --- | --- |', '| bold | **strong** |', '| italic | *slanted* |', '| strike | ~~gone~~ |', '| code | `x = 1` |', '| link | [site](https://example.org) |', '| mixed | ***both*** and `code` |') },
  { name: 'table-escaped-pipes', markdown: lines('| a \\| b | `c \\| d` |', '| --- | --- |', '| e\\|f | **g \\| h** |') },
  { name: 'table-empty-cells', markdown: lines('| a | | c |', '| --- | --- | --- |', '| | | |', '| x | y | |') },
  { name: 'table-alignment', markdown: lines('| left | center | right |', '| :--- | :---: | ---: |', '| 1 | 2 | 3 |') },
  { name: 'table-wikilinks-and-mentions', markdown: lines('| Page | Owner |', '| --- | --- |', '| [[garden]] | [@Ada](dt-mention:user-ada) |', '| [[beds\\|Raised beds]] | [@Bo](dt-mention:user-bo) |') },
  { name: 'table-ragged-rows', markdown: lines('| a | b | c |', '| --- | --- | --- |', '| only one |', '| 1 | 2 | 3 | 4 |') },

  // Images
  { name: 'image-with-title', markdown: '![A sketch of the pond](/api/v1/media/file-123 "The pond, 1890")' },
  { name: 'image-without-alt-or-title', markdown: '![](/api/v1/media/file-9)' },
  { name: 'image-alt-with-brackets-and-quotes', markdown: '![alt with \\[brackets\\] and "quotes"](/api/v1/media/file-7 "title with \\"quotes\\"")' },
  { name: 'image-external-becomes-link', markdown: '![remote picture](https://example.org/picture.png)' },
  { name: 'image-inside-paragraph', markdown: 'Before ![inline](/api/v1/media/file-1) after.' },

  // Wikilinks and transclusions
  { name: 'wikilinks', markdown: 'See [[home]], [[other-page|the other page]] and [[deep/nested-slug]].' },
  { name: 'wikilink-escaped-display-text', markdown: 'Link [[slug|a \\| pipe, a \\] bracket and a \\\\ backslash]] done.' },
  { name: 'wikilink-brackets-in-text', markdown: 'Link [[slug|[draft\\] notes]] and [[other|x [y\\] z]].' },
  { name: 'wikilinks-with-marks', markdown: '**[[bold-link]]** and *[[italic-link|Italic]]* and ~~[[gone]]~~' },
  { name: 'wikilinks-many-adjacent', markdown: '[[a]][[b]] [[c|C]][[d|D]], [[e]].' },
  { name: 'transclusions', markdown: lines('Intro.', '', '![[embedded-page]]', '', '![[other-page|Shown title]]', '', 'Outro.') },
  { name: 'transclusion-escaped-display', markdown: lines('![[slug|a \\| b \\] c \\\\ d]]') },
  { name: 'transclusion-only', markdown: '![[alone]]' },
  { name: 'transclusion-like-text-in-paragraph', markdown: 'Inline ![[not-a-transclusion]] in a sentence.' },

  // Plugin blocks
  { name: 'plugin-block', markdown: lines('```dt-plugin charts/bar', '{"values":[1,2,3],"title":"Harvest"}', '```') },
  { name: 'plugin-block-backticks-in-data', markdown: lines('`````dt-plugin notes/snippet', '{"code":"```js\\nalert(1)\\n```","inline":"`x` and ````"}', '`````') },
  { name: 'plugin-block-nested-json', markdown: lines('```dt-plugin maps/pins', '{', '  "pins": [{"lat": 52.5, "lng": 13.4, "label": "Teich \\"Nord\\" 🦆"}],', '  "options": {"zoom": 12, "layers": [], "meta": {}, "visible": true, "note": null}', '}', '```') },
  { name: 'plugin-block-empty-data', markdown: lines('```dt-plugin polls/simple', '{}', '```') },
  { name: 'plugin-blocks-between-paragraphs', markdown: lines('Before.', '', '```dt-plugin a/one', '{"n":1}', '```', '', '```dt-plugin b/two', '{"n":2}', '```', '', 'After.') },

  // Sections
  { name: 'section', markdown: lines(':::section{plugin="callouts" style="note"}', 'Inside the note.', ':::') },
  { name: 'sections-nested', markdown: lines('::::section{plugin="callouts" style="warning"}', 'Outer warning.', '', ':::section{plugin="callouts" style="note"}', 'Inner note.', ':::', '', 'Outer again.', '::::') },
  { name: 'section-with-everything', markdown: lines(':::section{plugin="layout" style="two-column"}', '## Section heading', '', '- item with [[link]]', '- [ ] task', '', '| a | b |', '| --- | --- |', '| 1 | 2 |', '', '```dt-plugin charts/pie', '{"slices":[1,2]}', '```', '', '![[embedded]]', ':::') },
  { name: 'unknown-directives-stay-text', markdown: lines(':::note', 'Not a section.', ':::', '', 'A ratio a:b, a time 10:30, :emoji: and ::leaf{x=1}.') },

  // Mentions
  { name: 'mentions', markdown: 'Hi [@Ada Lovelace](dt-mention:user-1) and [@Bo](dt-mention:u2), thanks.' },
  { name: 'mention-label-punctuation', markdown: 'Ask [@O\'Brien (ops)](dt-mention:user-3) or [@Zoë 🙂](dt-mention:user-4).' },
  { name: 'mentions-in-lists-and-quotes', markdown: lines('- [@Ada](dt-mention:user-ada) owns this', '', '> [@Bo](dt-mention:user-bo) said so') },

  // Text that must stay text
  { name: 'escaped-markdown-looking-text', markdown: lines('\\*not italic\\* \\_not italic\\_ \\`not code\\` \\[not a link\\](x) \\[\\[not-a-wikilink\\]\\]', '', '\\# not a heading', '', '1\\. not a list', '', '\\- not a bullet', '', '\\> not a quote', '', '\\:::section not a section') },
  { name: 'special-characters', markdown: '2 * 3 = 6, a < b > c, price $5 & tax, 100% # hash, back\\\\slash, tilde ~ caret ^ pipe | brace {x}' },
  { name: 'raw-html-stays-text', markdown: lines('<div onclick="alert(1)">block html</div>', '', 'Inline <b>bold?</b> and <script>alert(1)</script> and <!-- a comment -->.') },
  { name: 'html-entities', markdown: '&amp; &lt;tag&gt; &copy; &#35; &#x1F986; &nbsp;end' },
  { name: 'footnote-degrades-to-text', markdown: lines('Claim.[^1]', '', '[^1]: The source.') },
  { name: 'number-looking-paragraph', markdown: lines('2024\\. A year to remember.', '', '+ plus bullet', '', '* star bullet') },

  // Unicode and emptiness
  { name: 'unicode-emoji-rtl', markdown: lines('Grüße aus dem Dorfteich 🦆 👩‍👩‍👧‍👦 🇩🇪', '', 'مرحبا بالعالم — שלום עולם — 你好，世界 — こんにちは', '', '\u200fright-to-left mark\u200e and zero\u200bwidth space') },
  { name: 'empty-document', markdown: '' },
  { name: 'whitespace-only-document', markdown: '   \n\n   \n' },
  { name: 'trailing-whitespace-and-blank-lines', markdown: lines('', '', 'text after blank lines   ', '', '', '', 'more text', '', '') },

  // A page that mixes everything
  {
    name: 'kitchen-sink',
    markdown: lines(
      '# Garden log',
      '',
      'Planted by [@Ada](dt-mention:user-ada) on **Monday**; see [[beds|the beds]] and ![not an image](https://example.org/x.png).',
      '',
      '![[weekly-plan]]',
      '',
      '## Beds',
      '',
      '1. North',
      '   - [x] dig',
      '   - [ ] sow *carrots*',
      '2. South',
      '',
      '> Quote with `code` and a [[wikilink|link \\| pipe]].',
      '',
      '| Bed | State |',
      '| --- | --- |',
      '| North | ~~fallow~~ **sown** |',
      '',
      '```dt-plugin charts/line',
      '{"points":[[0,1],[1,3]],"label":"growth ```"}',
      '```',
      '',
      ':::section{plugin="callouts" style="tip"}',
      'Water early.  ',
      'Not at noon.',
      ':::',
      '',
      '![The north bed](/api/v1/media/file-42 "North")',
      '',
      '---',
      '',
      '## Beds',
    ),
  },
];
