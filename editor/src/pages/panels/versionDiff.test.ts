import assert from 'node:assert/strict';
import { test } from 'node:test';
import { versionDiff, type DiffRow } from './versionDiff.ts';

/** A row as "+ text", "- text", "  text" or "… n", changed words in [brackets]. */
const show = (rows: DiffRow[]) =>
  rows.map((row) => (row.kind === 'skipped' ? `… ${row.count}` : `${row.kind === 'added' ? '+' : row.kind === 'removed' ? '-' : ' '} ${row.segments.map((part) => (part.changed && row.kind !== 'same' && row.segments.length > 1 ? `[${part.text}]` : part.text)).join('')}`));

test('a replaced line shows old and new with the changed words marked; added and removed lines are counted', () => {
  const diff = versionDiff('# Bridge\n\nThe paint is blue.\n\nOld line', '# Bridge\n\nThe paint is dark green.\n\nNew line\nAnother');
  assert.deepEqual(show(diff.rows), ['  # Bridge', '  ', '- The paint is [blue].', '+ The paint is [dark green].', '  ', '- [Old] line', '+ [New] line', '+ Another']);
  assert.deepEqual([diff.added, diff.removed], [3, 2]);
});

test('kept lines far from a change fold into a count', () => {
  const lines = Array.from({ length: 12 }, (_, index) => `line ${index}`);
  const changed = [...lines];
  changed[6] = 'line six';
  const diff = versionDiff(lines.join('\n'), changed.join('\n'));
  assert.deepEqual(show(diff.rows), ['… 4', '  line 4', '  line 5', '- line [6]', '+ line [six]', '  line 7', '  line 8', '… 3']);
});

test('equal texts have no changes; from nothing everything is added', () => {
  assert.deepEqual(versionDiff('a\nb', 'a\nb\n'), { rows: [{ kind: 'skipped', count: 2 }], added: 0, removed: 0 });
  const fresh = versionDiff('', 'a\nb');
  assert.deepEqual(show(fresh.rows), ['+ a', '+ b']);
  assert.deepEqual([fresh.added, fresh.removed], [2, 0]);
  assert.deepEqual(versionDiff('', ''), { rows: [], added: 0, removed: 0 });
});
