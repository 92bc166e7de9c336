import { loadPublicPageData } from '../../api/publicPages/publicDocumentData.ts';
import { generatePageDocument, loadSiteContext } from '../../api/publicPages/publicDocumentGenerator.ts';
import { openBenchDatabase } from './benchDatabase.ts';
import { seedPublicBench } from './publicSeed.ts';
const database = await openBenchDatabase();
try {
  const data = await seedPublicBench(database.sequelize, { guideWords: 750, archivePages: 200, publicOrigin: 'https://teich.example.org' });
  const site = await loadSiteContext('https://x');
  for (let i = 0; i < 50; i++) await generatePageDocument(database.sequelize, site, data.guide.pageId);
  const { Session } = await import('node:inspector/promises');
  const session = new Session(); session.connect();
  await session.post('Profiler.enable'); await session.post('Profiler.setSamplingInterval', { interval: 100 }); await session.post('Profiler.start');
  const t0 = performance.now();
  for (let i = 0; i < 400; i++) await generatePageDocument(database.sequelize, site, data.guide.pageId);
  console.log('per generate', ((performance.now() - t0) / 400).toFixed(2));
  const { profile } = await session.post('Profiler.stop');
  (await import('node:fs')).writeFileSync('/tmp/h5/generate.cpuprofile', JSON.stringify(profile));
} finally { await database.close(); }
