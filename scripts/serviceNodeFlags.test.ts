import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serviceNodeFlags } from './serviceNodeFlags.ts';

test('services get a bounded young generation unless NODE_OPTIONS already sets one', () => {
  assert.deepEqual(serviceNodeFlags(undefined), ['--max-semi-space-size=16']);
  assert.deepEqual(serviceNodeFlags('--enable-source-maps'), ['--max-semi-space-size=16']);
  assert.deepEqual(serviceNodeFlags('--max-semi-space-size=64'), [], "the operator's value stays");
});
