/** Which SMTP relay hosts pass the field rule: host names and IP addresses, nothing a resolver would have to guess at. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isValidSmtpHost } from './smtpHost.ts';

describe('isValidSmtpHost', () => {
  test('host names, a trailing dot, container names and IP addresses pass', () => {
    for (const host of ['mail.example.org', 'MAIL.Example.ORG', 'mail.example.org.', 'localhost', 'smtp_relay', 'smtp-relay', 'xn--mil-sna.example', '1mail.example', 'mail.example.co1', '192.0.2.25', '::1', '2001:db8::25', '::ffff:192.0.2.25', `${'a'.repeat(63)}.example.org`]) {
      assert.equal(isValidSmtpHost(host), true, JSON.stringify(host));
    }
  });

  test('control, replacement and invisible characters, spaces, ports, brackets, numbers the resolver would guess at and bad labels are refused', () => {
    for (const host of [
      '',
      '.',
      '127.0.0.1\uFFFD',
      'm\u00E4il.example.org',
      '127.0.0.1\u200B',
      '127.0.0.1\u0000',
      '127.0.0.1\u007F',
      'mail.example.org\n',
      'mail example.org',
      ' mail.example.org',
      '127.1',
      '2130706433',
      '0x7f000001',
      '0x7f.0.0.1',
      '127.0.0.01',
      '256.0.0.1',
      '[::1]',
      'fe80::1%eth0',
      '::g',
      'mail.example.org:25',
      'smtp://mail.example.org',
      'user@mail.example.org',
      'mail/example',
      '-mail.example.org',
      'mail-.example.org',
      'mail..example.org',
      `${'a'.repeat(64)}.example.org`,
      `${'a.'.repeat(127)}org`,
    ]) {
      assert.equal(isValidSmtpHost(host), false, JSON.stringify(host));
    }
  });
});
