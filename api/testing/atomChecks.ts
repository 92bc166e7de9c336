/**
 * Checks every feed test runs on what a feed route sent: well-formed XML 1.0 (fast-xml-parser's
 * validator, plus the characters XML forbids, which that validator lets pass), parsed by a real
 * Atom parser (feedsmith), and valid against RFC 4287's RELAX NG schema and its two Schematron
 * rules with `jing` (the schemas, RFC 4287 Appendix B, live in api/feeds/schemas/). Without
 * jing on the machine the schema check is skipped, saying why; .ci/run installs it.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { XMLValidator } from 'fast-xml-parser';
import { parseAtomFeed } from 'feedsmith';

export const ATOM_SCHEMA_DIR = path.resolve(fileURLToPath(new URL('../feeds/schemas', import.meta.url)));

const FORBIDDEN_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

export type ParsedAtomFeed = ReturnType<typeof parseAtomFeed>;

/** Well-formed, only allowed characters, and parsed as Atom; the parsed feed. */
export function parseAtom(xml: string): ParsedAtomFeed {
  const wellFormed = XMLValidator.validate(xml);
  assert.equal(wellFormed, true, `not well-formed XML: ${JSON.stringify(wellFormed)}`);
  assert.ok(!FORBIDDEN_XML_CHAR.test(xml), 'the feed holds a character XML 1.0 does not allow');
  return parseAtomFeed(xml);
}

function findJing(): string | null {
  const probe = spawnSync('sh', ['-c', 'command -v jing'], { encoding: 'utf8' });
  return probe.status === 0 && probe.stdout.trim() ? probe.stdout.trim() : null;
}

let unavailability: string | null | undefined;

/** Why the schema check cannot run here, or null when it can (looked up once). */
export function schemaCheckUnavailable(): string | null {
  unavailability ??= findUnavailability();
  return unavailability;
}

function findUnavailability(): string | null {
  if (!existsSync(path.join(ATOM_SCHEMA_DIR, 'atom.rnc')) || !existsSync(path.join(ATOM_SCHEMA_DIR, 'atom-rules.sch'))) {
    return `the RFC 4287 schemas are not at ${ATOM_SCHEMA_DIR}`;
  }
  if (!findJing()) return 'jing is not installed (Debian package jing)';
  return null;
}

/** jing's exit code and output; never rejects. */
function runJing(args: string[]): Promise<{ status: number; output: string }> {
  return new Promise((resolve) => {
    execFile('jing', args, { encoding: 'utf8' }, (error, stdout, stderr) => {
      const status = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ status, output: `${stdout}${stderr.replace(/^\[warning\].*\n/gm, '')}` });
    });
  });
}

/**
 * Runs jing with the RELAX NG schema and with the Schematron rules; fails with jing's findings.
 * Asynchronous on purpose: the test instance serves from this process, and a JVM start that
 * blocked the event loop would let idle keep-alive connections expire under the client's feet.
 */
export async function assertValidAtomSchema(xml: string, label: string): Promise<void> {
  const directory = mkdtempSync(path.join(tmpdir(), 'dt-atom-'));
  try {
    const file = path.join(directory, 'feed.xml');
    writeFileSync(file, xml, 'utf8');
    for (const args of [['-c', path.join(ATOM_SCHEMA_DIR, 'atom.rnc'), file], [path.join(ATOM_SCHEMA_DIR, 'atom-rules.sch'), file]]) {
      const run = await runJing(args);
      assert.equal(run.status, 0, `${label}: jing ${path.basename(args.at(-2)!)} found:\n${run.output}`);
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
