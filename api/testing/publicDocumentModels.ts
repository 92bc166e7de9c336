/**
 * Public document models for the renderer and look tests: a rich page whose body comes from the
 * real content pipeline (headings, table, code, task list, transclusions, a plugin block, long
 * words), a pond index, a landing page and a legal page. Hostile strings go into every text the
 * layout prints, so the tests can prove they come out escaped.
 */
import { documentToHtml, expandPlaceholders, extract, markdownToDocument, renderCommentHtml } from '../../content-pipeline/index.ts';
import { DEFAULT_FONTS } from '../ponds/fontCatalog.ts';
import type { PublicDocumentModel } from '../publicPages/publicDocumentModel.ts';

export const HOSTILE = `<script>alert(1)</script>"'&`;

const BASE = 'https://wiki.example.org';

const RICH_MARKDOWN = `Welcome to the **field guide**. It links to [[brook-trout|the brook trout]], to a page that does not exist yet ([[heron-nests]]) and to [an outside source](https://example.org/ponds).

## Water quality

Measure in the morning, before the sun warms the surface. Keep the readings in the table below; a very long German word such as Donaudampfschifffahrtsgesellschaftskapitänsmützenabzeichenhalterung must not push the page sideways.

| Spot | Temperature | Oxygen (mg/l) | Notes |
|---|---:|---:|---|
| North inlet | 14.2 °C | 9.1 | Clear, some duckweed near the reeds and the old wooden jetty |
| South bank | 16.8 °C | 7.4 | Algae bloom starting after the warm week in late June |
| Deep middle | 11.5 °C | 8.2 | Measured from the boat at three metres depth |

### Equipment

- A calibrated thermometer
- The oxygen probe, rinsed with distilled water
- A notebook with \`waterproof\` paper

## Checklist

- [x] Order new test strips
- [x] Fix the jetty railing
- [ ] Count the frog spawn
- [ ] Write the yearly report

> A pond is a mirror of its surroundings: what happens on the land ends up in the water.

## Data export

\`\`\`ts
export function averageTemperature(readings: Reading[]): number {
  const total = readings.reduce((sum, reading) => sum + reading.celsius, 0);
  return readings.length === 0 ? Number.NaN : Math.round((total / readings.length) * 10) / 10; // one decimal is enough for the report
}
\`\`\`

## Related notes

![[brook-trout]]

![[heron-nests]]

\`\`\`\`dt-plugin charts/line
{"series":[1,2,3]}
\`\`\`\`

---

Last checked by the pond team.
`;

const TROUT_BODY = '<p>Brook trout need <strong>cold, clean water</strong> with at least 7 mg/l of oxygen.</p><ul><li>Spawn in autumn</li><li>Prefer gravel beds</li></ul>';

/** The rich page's body as the generator will produce it: pipeline HTML, placeholders expanded. */
function richBody(): { bodyHtml: string; outline: PublicDocumentModel['outline'] } {
  const doc = markdownToDocument(RICH_MARKDOWN);
  const html = documentToHtml(doc, { resolveLink: (slug) => (slug === 'brook-trout' ? { href: '/field-guide/brook-trout' } : null) });
  const bodyHtml = expandPlaceholders(html, {
    resolveTransclusion: (slug) => (slug === 'brook-trout' ? { html: TROUT_BODY, title: 'Brook trout' } : null),
    resolvePluginBlock: () => ({ fallbackText: 'A line chart of the oxygen readings.' }),
  });
  const outline = extract(doc).outline.map((entry) => ({ level: entry.level, text: entry.text, id: entry.id }));
  return { bodyHtml, outline };
}

const LEGAL = { imprint: '/legal/imprint', privacy: '/legal/privacy' };

export function richPageModel(overrides: Partial<PublicDocumentModel> = {}): PublicDocumentModel {
  const { bodyHtml, outline } = richBody();
  return {
    kind: 'page',
    locale: 'en',
    instanceName: 'Village Wiki',
    title: 'Pond maintenance',
    description: 'How we look after the village pond: water quality, equipment and the yearly checklist.',
    canonicalUrl: `${BASE}/field-guide/pond-maintenance`,
    feeds: [
      { title: 'Field guide: recent changes', href: `${BASE}/api/v1/public/field-guide/feed.xml` },
      { title: 'Pond maintenance: history', href: `${BASE}/api/v1/public/field-guide/pond-maintenance/feed.xml` },
    ],
    fonts: { body: 'inter', heading: 'inter', code: 'jetbrains-mono' },
    pond: { title: 'Field guide', href: '/field-guide' },
    breadcrumbs: [{ title: 'Care and upkeep', href: '/field-guide/care-and-upkeep' }],
    outline,
    bodyHtml,
    children: [
      { title: 'Winter preparations', href: '/field-guide/winter-preparations' },
      { title: 'Removing algae', href: '/field-guide/removing-algae' },
      { title: 'Reed bed care', href: '/field-guide/reed-bed-care' },
    ],
    backlinks: [
      { title: 'Volunteer rota', href: '/field-guide/volunteer-rota' },
      { title: 'Annual report 2024', href: '/field-guide/annual-report-2024' },
    ],
    comments: [],
    tree: [],
    updatedAt: '2025-03-05T14:03:27.000Z',
    pluginStyles: '',
    landing: null,
    legal: LEGAL,
    ...overrides,
  };
}

/** A page with the hostile string in every text the layout prints. */
export function hostilePageModel(): PublicDocumentModel {
  return richPageModel({
    instanceName: `Wiki ${HOSTILE}`,
    title: `Title ${HOSTILE}`,
    description: `Description ${HOSTILE}`,
    canonicalUrl: `${BASE}/field-guide/page?x=${encodeURIComponent(HOSTILE)}`,
    feeds: [{ title: `Feed ${HOSTILE}`, href: `${BASE}/api/v1/public/field-guide/feed.xml` }],
    pond: { title: `Pond ${HOSTILE}`, href: '/field-guide' },
    breadcrumbs: [{ title: `Crumb ${HOSTILE}`, href: '/field-guide/parent' }],
    outline: [
      { level: 2, text: `Heading ${HOSTILE}`, id: 'h-one' },
      { level: 2, text: 'Second', id: 'h-two' },
    ],
    bodyHtml: '<h2 id="h-one">Heading &lt;script&gt;</h2><p>Body</p><h2 id="h-two">Second</h2>',
    children: [{ title: `Child ${HOSTILE}`, href: '/field-guide/child' }],
    backlinks: [{ title: `Backlink ${HOSTILE}`, href: '/field-guide/backlink' }],
  });
}

/**
 * A page with two open threads (one anchored, with replies; one with a code block), bodies from
 * the real comment renderer; with `hostile`, the hostile string in every comment text the
 * layout prints.
 */
export function commentedPageModel(overrides: Partial<PublicDocumentModel> = {}, options: { hostile?: boolean } = {}): PublicDocumentModel {
  const extra = options.hostile ? ` ${HOSTILE}` : '';
  return richPageModel({
    comments: [
      {
        author: `Ada Lindqvist${extra}`,
        createdAt: '2025-03-06T09:15:00.000Z',
        edited: true,
        bodyHtml: renderCommentHtml(`Is the **north inlet** still clear after the storm?${extra}`),
        quote: `Measure in the morning, before the sun warms the surface.${extra}`,
        replies: [
          { author: 'Bert', createdAt: '2025-03-06T10:02:00.000Z', edited: false, bodyHtml: renderCommentHtml('Yes, checked on Monday.') },
          { author: `Cleo Donaudampfschifffahrtsgesellschaft${extra}`, createdAt: '2025-03-07T16:45:00.000Z', edited: false, bodyHtml: renderCommentHtml('> checked on Monday\n\nThanks! I will add the reading to the table.') },
        ],
      },
      {
        author: 'Dora',
        createdAt: '2025-03-08T08:00:00.000Z',
        edited: false,
        bodyHtml: renderCommentHtml('The script needs a guard:\n\n```ts\nif (readings.length === 0) return Number.NaN; // a long line that must scroll inside its own box on a phone\n```'),
        quote: null,
        replies: [],
      },
    ],
    ...overrides,
  });
}

export function pondIndexModel(overrides: Partial<PublicDocumentModel> = {}): PublicDocumentModel {
  return {
    ...richPageModel(),
    kind: 'pond',
    title: 'Field guide',
    description: 'Everything the village knows about its pond.',
    canonicalUrl: `${BASE}/field-guide`,
    feeds: [{ title: 'Field guide: recent changes', href: `${BASE}/api/v1/public/field-guide/feed.xml` }],
    breadcrumbs: [],
    outline: [],
    bodyHtml: '',
    children: [],
    backlinks: [],
    updatedAt: null,
    tree: [
      {
        title: 'Care and upkeep',
        href: '/field-guide/care-and-upkeep',
        children: [
          { title: 'Pond maintenance', href: '/field-guide/pond-maintenance', children: [{ title: 'Winter preparations', href: '/field-guide/winter-preparations', children: [] }] },
          { title: 'Removing algae', href: '/field-guide/removing-algae', children: [] },
        ],
      },
      { title: 'Animals', href: '/field-guide/animals', children: [{ title: 'Brook trout', href: '/field-guide/brook-trout', children: [] }] },
      { title: 'Volunteer rota', href: '/field-guide/volunteer-rota', children: [] },
    ],
    ...overrides,
  };
}

export function homeModel(overrides: Partial<PublicDocumentModel> = {}): PublicDocumentModel {
  return {
    kind: 'home',
    locale: 'en',
    instanceName: 'Village Wiki',
    title: 'Village Wiki',
    description: 'The knowledge base of our village.',
    canonicalUrl: `${BASE}/`,
    feeds: [],
    fonts: { ...DEFAULT_FONTS },
    pond: null,
    breadcrumbs: [],
    outline: [],
    bodyHtml: '<h1 id="h-welcome">Welcome to the Village Wiki</h1><p>Here the village writes down what it knows: the <a href="/field-guide">field guide</a> to the pond, the club calendar and more.</p>',
    children: [],
    backlinks: [],
    comments: [],
    tree: [],
    updatedAt: null,
    pluginStyles: '',
    landing: {
      registrationOpen: true,
      ponds: [{ title: 'Field guide', href: '/field-guide', pageCount: 4 }],
      recentPages: [{ title: 'Volunteer rota', href: '/field-guide/volunteer-rota', pondTitle: 'Field guide', updatedAt: '2026-05-04T09:30:00.000Z' }],
    },
    legal: LEGAL,
    ...overrides,
  };
}

export function legalModel(overrides: Partial<PublicDocumentModel> = {}): PublicDocumentModel {
  return {
    ...homeModel(),
    kind: 'legal',
    title: 'Imprint',
    description: 'Who runs this site.',
    canonicalUrl: `${BASE}/legal/imprint`,
    bodyHtml: '<p>Village Wiki is run by the Pond Club e.V., Teichweg 1, 12345 Dorf.</p><p>Contact: <a href="mailto:club@example.org">club@example.org</a></p>',
    ...overrides,
  };
}
