/**
 * Checks every feed test runs on what a feed route sent: well-formed XML 1.0 (fast-xml-parser's
 * validator, plus the characters XML forbids, which that validator lets pass), parsed by a real
 * Atom parser (feedsmith), and valid against RFC 4287's RELAX NG schema and its two Schematron
 * rules with `jing` (the schemas, RFC 4287 Appendix B, live in api/feeds/schemas/). Without
 * jing on the machine the schema check is skipped, saying why; .ci/run installs it.
 *
 * jing is a JVM program: each run costs 1–2 s of CPU before it reads a byte (the Schematron
 * rules most: Saxon compiles them first). A file that fetches many feeds collects them in an
 * AtomSchemaBatch and has jing check all of them in one run per schema.
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

/** The two checks, each one jing run over any number of feed files. */
const schemaRuns = (files: string[]) => [['-c', path.join(ATOM_SCHEMA_DIR, 'atom.rnc'), ...files], [path.join(ATOM_SCHEMA_DIR, 'atom-rules.sch'), ...files]];

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
    for (const args of schemaRuns([file])) {
      const run = await runJing(args);
      assert.equal(run.status, 0, `${label}: jing ${path.basename(args.at(-2)!)} found:\n${run.output}`);
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/**
 * Feeds kept to be checked against the schema together (`assertAllValid`): the same two jing
 * checks as assertValidAtomSchema, for every feed, in two JVM starts instead of two per feed.
 * A finding names the feed's label (its path and the test that fetched it).
 */
export class AtomSchemaBatch {
  readonly #feeds: { xml: string; label: string }[] = [];

  add(xml: string, label: string): void {
    this.#feeds.push({ xml, label });
  }

  get size(): number {
    return this.#feeds.length;
  }

  async assertAllValid(): Promise<void> {
    const directory = mkdtempSync(path.join(tmpdir(), 'dt-atom-'));
    try {
      const files = this.#feeds.map(({ xml }, index) => {
        const file = path.join(directory, `feed-${index}.xml`);
        writeFileSync(file, xml, 'utf8');
        return file;
      });
      const labels = this.#feeds.map(({ label }) => label);
      const named = (output: string) => files.reduceRight((text, file, index) => text.replaceAll(file, labels[index]!), output);
      /** Per check, per feed: jing's finding, or null when the feed passed it. */
      const verdicts: { schema: string; findings: (string | null)[] }[] = [];
      for (const [check, args] of schemaRuns(files).entries()) {
        const schema = path.basename(args[args[0] === '-c' ? 1 : 0]!);
        const run = await runJing(args);
        let findings: (string | null)[];
        if (run.status === 0) findings = files.map(() => null);
        else if (files.some((file) => run.output.includes(file))) {
          const lines = run.output.split('\n');
          findings = files.map((file) => {
            const own = lines.filter((line) => line.includes(file));
            return own.length > 0 ? named(own.join('\n')) : null;
          });
        } else {
          // Schematron findings name no file: the failing feeds are found one by one (only on failure).
          findings = [];
          for (const file of files) {
            const single = await runJing(schemaRuns([file])[check]!);
            findings.push(single.status === 0 ? null : single.output.trim());
          }
        }
        verdicts.push({ schema, findings });
      }
      const everyFinding = verdicts
        .flatMap(({ schema, findings }) => findings.map((finding, index) => (finding === null ? null : `jing ${schema} found in ${labels[index]}:\n${finding}`)))
        .filter((finding) => finding !== null)
        .join('\n');
      // One assertion per feed and check, as when each feed was checked on its own.
      for (const { schema, findings } of verdicts) {
        for (const [index, finding] of findings.entries()) {
          assert.equal(finding, null, `${labels[index]} is invalid against ${schema}; every finding of the batch:\n${everyFinding}`);
        }
      }
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }
}
