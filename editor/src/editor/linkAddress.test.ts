import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkLinkAddress } from './linkAddress.ts';

test('web and mail addresses and paths on this site are written, trimmed', () => {
  for (const href of ['https://example.org/a?b=c#d', 'http://localhost:4321', 'HTTPS://Example.org', 'mailto:ada@example.org', '/pond/page', '#section']) {
    assert.deepEqual(checkLinkAddress(`  ${href} `), { ok: true, href });
  }
});

test('an uploaded file’s address (what an attachment link holds) is a path on this site', () => {
  const href = '/api/v1/media/6f1c0e1a-2b3c-4d5e-8f90-a1b2c3d4e5f6';
  assert.deepEqual(checkLinkAddress(href), { ok: true, href });
});

test('nothing typed is its own refusal', () => {
  assert.deepEqual(checkLinkAddress('   '), { ok: false, reason: 'empty' });
});

test('other schemes, bare words, other hosts without a scheme and hidden characters are refused', () => {
  for (const href of ['javascript:alert(1)', 'JavaScript:alert(1)', ' javascript:alert(1)', 'java\tscript:alert(1)', 'data:text/html,<b>x</b>', 'vbscript:x', 'file:///etc/passwd', 'example.org', 'page name', '//evil.example', '/\\evil.example', 'https://', 'http:///path', 'mailto:', 'https://exa mple.org']) {
    assert.deepEqual(checkLinkAddress(href), { ok: false, reason: 'refused' }, href);
  }
});
