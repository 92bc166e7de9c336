/**
 * `next` after signing in is only ever a path on this site: the rule itself
 * (editor/src/navigation/safeNextPath.ts), the login page's redirect of a signed-in visitor
 * through the real HTTP route, and the login form's redirect in Chromium. The rule's unit
 * tests live here because this directory is where the suite runs site and editor code.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { ADMIN, completeSetup } from '../../api/testing/fixtures.ts';
import { startTestInstance, type TestInstance } from '../../api/testing/testInstance.ts';
import { safeNextPath } from '../../editor/src/navigation/safeNextPath.ts';
import { ensureSiteBuilt } from '../../scripts/build-site.ts';
import { expectAccessible } from './axe.ts';

/** Values a browser would resolve to another host, and how each may arrive. */
const OFF_SITE = [
  ['/\t/evil.example', 'a tab (browsers drop it: //evil.example)'],
  ['/\n/evil.example', 'a line feed'],
  ['/\r/evil.example', 'a carriage return'],
  ['/\u0000/evil.example', 'a NUL'],
  ['/\u0085/evil.example', 'a C1 control (NEL)'],
  ['//evil.example', 'a protocol-relative URL'],
  ['/\\evil.example', 'a backslash (browsers read it as /)'],
  ['/\\/evil.example', 'a backslash and a slash'],
  ['\\\\evil.example', 'two backslashes'],
  ['https://evil.example', 'an absolute URL'],
  ['https:evil.example', 'a scheme without slashes'],
  ['javascript:alert(1)', 'a javascript: URL'],
  ['/.//evil.example', 'dot segments that leave //evil.example'],
  ['/a/..//evil.example', 'dot segments that leave //evil.example'],
  ['evil.example', 'a relative path'],
  [' /x', 'leading whitespace'],
] as const;

describe('safeNextPath', () => {
  test('a missing or empty value goes home', () => {
    assert.equal(safeNextPath(null), '/');
    assert.equal(safeNextPath(undefined), '/');
    assert.equal(safeNextPath(''), '/');
  });

  for (const [value, what] of OFF_SITE) {
    test(`refused: ${what} ${JSON.stringify(value)}`, () => {
      assert.equal(safeNextPath(value), '/');
    });
  }

  test('a path on this site is kept, with its query and fragment', () => {
    assert.equal(safeNextPath('/settings'), '/settings');
    assert.equal(safeNextPath('/p/abc?tab=history#h-intro'), '/p/abc?tab=history#h-intro');
    assert.equal(safeNextPath('/a/../b'), '/b');
  });

  test('percent-encoded characters stay encoded: a browser does not decode them before resolving', () => {
    assert.equal(safeNextPath('/%09/evil.example'), '/%09/evil.example');
    assert.equal(safeNextPath('/%2F/evil.example'), '/%2F/evil.example');
    assert.equal(safeNextPath('/%5Cevil.example'), '/%5Cevil.example');
    assert.equal(safeNextPath('/caf\u00e9'), '/caf%C3%A9');
  });
});

describe('the login page and form follow only same-site `next` values', () => {
  let instance: TestInstance;
  let sessionCookie: string;
  let browser: Browser;

  before(async () => {
    await ensureSiteBuilt();
    instance = await startTestInstance({ site: true });
    const admin = await completeSetup(instance);
    assert.ok(admin.sessionCookie);
    sessionCookie = `dt_session=${admin.sessionCookie}`;
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      // Every other host fails at once, so a redirect off-site shows as an error page, not a wait.
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
    });
  });
  after(async () => {
    await browser?.close();
    await instance?.close();
  });

  /** Where GET /login?<query> sends a signed-in visitor. */
  async function redirectOfSignedIn(query: string): Promise<string | null> {
    const response = await fetch(`${instance.baseUrl}/login?${query}`, { headers: { cookie: sessionCookie }, redirect: 'manual' });
    assert.ok(response.status >= 300 && response.status < 400, `GET /login?${query} answered ${response.status}`);
    const location = response.headers.get('location');
    assert.ok(location !== null);
    return new URL(location, instance.baseUrl).href;
  }

  test('a signed-in visitor is sent home for every off-site `next`, however it is encoded', async () => {
    const home = `${instance.baseUrl}/`;
    const queries = [
      'next=/%09/evil.example',
      'next=%2F%09%2Fevil.example',
      'next=/%0A/evil.example',
      'next=/%0D%0A/evil.example',
      'next=//evil.example',
      'next=%2F%2Fevil.example',
      'next=/%5Cevil.example',
      'next=%2F%5C%2Fevil.example',
      'next=/\\evil.example',
      'next=https://evil.example',
      'next=https%3A%2F%2Fevil.example',
      'next=/.//evil.example',
      'next=%2F%2E%2F%2Fevil.example',
    ];
    for (const query of queries) assert.equal(await redirectOfSignedIn(query), home, query);
  });

  test('a signed-in visitor is sent to a same-site `next`', async () => {
    assert.equal(await redirectOfSignedIn('next=/settings'), `${instance.baseUrl}/settings`);
    assert.equal(await redirectOfSignedIn('next=%2Fsettings%3Ftab%3D1'), `${instance.baseUrl}/settings?tab=1`);
    assert.equal(await redirectOfSignedIn(''), `${instance.baseUrl}/`);
  });

  /** Signs in through the form on /login?<query>; returns the URL the browser ends up on. */
  async function signInThroughForm(query: string): Promise<string> {
    const context = await browser.newContext({ locale: 'en-US' });
    context.setDefaultTimeout(10_000);
    try {
      const page = await context.newPage();
      await page.goto(`${instance.baseUrl}/login?${query}`);
      await expectAccessible(page, `/login?${query}`);
      await page.getByLabel('Username or e-mail address').fill(ADMIN.username);
      await page.getByLabel('Password').fill(ADMIN.password);
      await Promise.all([page.waitForURL((url) => url.pathname !== '/login'), page.getByRole('button', { name: 'Sign in' }).click()]);
      return page.url();
    } finally {
      await context.close();
    }
  }

  test('after signing in through the form, an off-site `next` leads home, a same-site one is followed', { timeout: 60_000 }, async () => {
    assert.equal(await signInThroughForm('next=/%09/evil.example'), `${instance.baseUrl}/`);
    assert.equal(await signInThroughForm('next=%2F%5Cevil.example'), `${instance.baseUrl}/`);
    assert.equal(await signInThroughForm('next=%2Fsettings'), `${instance.baseUrl}/settings`);
  });
});
