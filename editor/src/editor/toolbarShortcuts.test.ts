import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ariaKeyshortcuts, onApplePlatform, shortcutLabel, TOOL_SHORTCUTS } from './toolbarShortcuts.ts';

test('a shortcut reads in the reader’s language and for their keyboard', () => {
  assert.equal(shortcutLabel(TOOL_SHORTCUTS.bold, 'en', false), 'Ctrl+B');
  assert.equal(shortcutLabel(TOOL_SHORTCUTS.bold, 'de', false), 'Strg+B');
  assert.equal(shortcutLabel(TOOL_SHORTCUTS.strike, 'en', false), 'Ctrl+Shift+S');
  assert.equal(shortcutLabel(TOOL_SHORTCUTS.strike, 'de', false), 'Strg+Umschalt+S');
  assert.equal(shortcutLabel(TOOL_SHORTCUTS.heading2, 'de', false), 'Strg+Alt+2');
  assert.equal(shortcutLabel(TOOL_SHORTCUTS.strike, 'de', true), '⌘⇧S');
  assert.equal(shortcutLabel(TOOL_SHORTCUTS.comment, 'en', true), '⌘⌥M');
});

test('aria-keyshortcuts names Control and Meta, as both are bound', () => {
  assert.equal(ariaKeyshortcuts(TOOL_SHORTCUTS.link), 'Control+K Meta+K');
  assert.equal(ariaKeyshortcuts(TOOL_SHORTCUTS.comment), 'Control+Alt+M Meta+Alt+M');
  assert.equal(ariaKeyshortcuts('Shift-Tab'), 'Shift+Tab');
});

test('Apple platforms are told apart from the others', () => {
  assert.equal(onApplePlatform({ platform: 'MacIntel' }), true);
  assert.equal(onApplePlatform({ platform: '', userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)' }), true);
  assert.equal(onApplePlatform({ platform: 'Linux x86_64' }), false);
  assert.equal(onApplePlatform({ platform: 'Win32' }), false);
});
