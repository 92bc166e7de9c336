import { test } from 'node:test';
import { XSS_VECTORS } from '../../content-pipeline/html/xssVectors.ts';
import { startPublicInstance, patchSettings } from './publicFixtures.ts';
test('dump', async () => {
  const { instance, admin } = await startPublicInstance();
  for (const { payload } of XSS_VECTORS) {
    if (payload.includes('\0')) continue;
    await patchSettings(admin, { 'home.content': payload, 'legal.imprint': `[x](${payload})` });
    const r = await fetch(`${instance.baseUrl}/`);
    const l = await fetch(`${instance.baseUrl}/legal/imprint`);
    const csp = r.headers.get('content-security-policy') ?? '';
    const csp2 = l.headers.get('content-security-policy') ?? '';
    if (!csp.startsWith("default-src 'none'") || !csp2.startsWith("default-src 'none'")) console.log('FAIL', JSON.stringify(payload), r.status, l.status);
  }
  await instance.close();
});
