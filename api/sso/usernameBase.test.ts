/** The username a first SSO login derives, before uniqueness (the route tests cover `-2`). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { usernameSchema } from '../auth/accountSchemas.ts';
import { usernameBase } from './ssoSignIn.ts';

test('a preferred username or local part becomes a valid username', () => {
  const cases: [string, string][] = [
    ['Maria K', 'maria-k'],
    ['Jörg.Müller', 'jorg.muller'],
    ['ab', 'ab0'],
    ['..x', 'x00'],
    ['', 'user'],
    ['日本', 'user'],
    ['a'.repeat(50), 'a'.repeat(32)],
    ['-_-anna', 'anna'],
  ];
  for (const [wanted, expected] of cases) {
    assert.equal(usernameBase(wanted), expected, wanted);
    assert.ok(usernameSchema.safeParse(usernameBase(wanted)).success, `${wanted} → valid`);
  }
});
