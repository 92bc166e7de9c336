import { loadPublicPageData } from '../../api/publicPages/publicDocumentData.ts';
import { openBenchDatabase } from './benchDatabase.ts';
import { seedPublicBench } from './publicSeed.ts';
const database = await openBenchDatabase();
try {
  const data = await seedPublicBench(database.sequelize, { guideWords: 750, archivePages: 200, publicOrigin: 'https://teich.example.org' });
  for (let i = 0; i < 50; i++) await loadPublicPageData(database.sequelize, data.guide.pageId);
  const times = new Map<string, number[]>();
  const s = database.sequelize as any;
  s.options.benchmark = true;
  s.options.logging = (sql: string, ms: number) => { const k = sql.slice(0, 90).replace(/\s+/g, ' '); (times.get(k) ?? times.set(k, []).get(k)!).push(ms); };
  const t0 = performance.now();
  for (let i = 0; i < 100; i++) await loadPublicPageData(database.sequelize, data.guide.pageId);
  console.log('per load', ((performance.now() - t0) / 100).toFixed(2));
  s.options.logging = false;
  for (const [k, v] of times) { v.sort((a, b) => a - b); console.log(v.length, 'median', v[v.length >> 1], k); }
} finally { await database.close(); }
