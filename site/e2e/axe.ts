/**
 * Accessibility checks with axe-core in the page under test: every rule axe runs by default
 * (WCAG 2.x A/AA and best practices), and a test fails on any violation of impact serious or
 * critical, printing each with the elements it found. Lesser findings are printed, not failed.
 *
 * axe's source goes in through `page.evaluate`, not `page.addScriptTag`: the site's
 * Content-Security-Policy (script-src 'self' plus hashes) refuses an inline <script>, and
 * turning the policy off (`bypassCSP`) would hide the CSP violations the tests watch for.
 */
import assert from 'node:assert/strict';
import axe from 'axe-core';
import type { Page } from 'playwright-core';

type AxeViolation = axe.Result;

const FAILING_IMPACTS = new Set(['serious', 'critical']);

/** One line per violation and an indented line per element (its selector and what is wrong). */
export function describeViolations(violations: AxeViolation[]): string {
  return violations
    .map((violation) => {
      const nodes = violation.nodes.map((node) => `    ${node.target.join(' ')}: ${(node.failureSummary ?? '').replace(/\s+/g, ' ').trim()}`);
      return [`  [${violation.impact}] ${violation.id}: ${violation.help} (${violation.helpUrl})`, ...nodes].join('\n');
    })
    .join('\n');
}

/** Runs axe-core on the page as it is now and returns every violation it finds. */
export async function runAxe(page: Page): Promise<AxeViolation[]> {
  const loaded = await page.evaluate(() => 'axe' in window);
  if (!loaded) await page.evaluate(axe.source);
  const results: axe.AxeResults = await page.evaluate(() => (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] }));
  return results.violations;
}

/** Fails on violations of impact serious or critical (named in the failure); prints the lesser ones it finds. */
export async function expectAccessible(page: Page, screen: string): Promise<void> {
  const violations = await runAxe(page);
  const failing = violations.filter((violation) => FAILING_IMPACTS.has(violation.impact ?? ''));
  const lesser = violations.filter((violation) => !failing.includes(violation));
  if (lesser.length > 0) console.log(`axe: ${screen} (${page.url()})\n${describeViolations(lesser)}`);
  assert.deepEqual(
    failing.map((violation) => violation.id),
    [],
    `axe: serious or critical accessibility violations on ${screen}:\n${describeViolations(failing)}`,
  );
}
