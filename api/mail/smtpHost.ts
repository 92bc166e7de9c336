/**
 * What an SMTP relay's host may be: a DNS host name in ASCII, or an IPv4 / IPv6 address.
 *
 * The host goes to the resolver as it is (nodemailer asks DNS, then `dns.lookup`), and the
 * resolver is lenient in ways nobody should rely on: `dns.lookup` maps Unicode through IDNA, so
 * `127.0.0.1` followed by a zero-width space, a soft hyphen or a byte-order mark, fullwidth digits
 * and ideographic full stops all reach 127.0.0.1, and getaddrinfo reads `127.1`, `2130706433`
 * and `0x7f000001` as addresses too. Text that is not plainly a host therefore never leaves
 * the process: control and replacement characters, spaces, ports, brackets, URLs are refused
 * at the field, before any connection or lookup.
 *
 * Underscores are allowed in labels: they are not valid in host names, but container names
 * (`smtp_relay`) resolve through Docker's DNS and are harmless ASCII. International names are
 * given in their `xn--` form.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { z } from 'zod';

/** The refinement's code, worded by api/i18n/fieldMessages.ts. */
export const INVALID_HOST = 'invalid_host';

const MAX_HOST_NAME_LENGTH = 253;
const LABEL = /^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/;
/** A last label the resolver would read as a number (the WHATWG URL parser's "ends in a number"). */
const NUMERIC_LABEL = /^(?:[0-9]+|0x[0-9a-f]*)$/i;
/** IPv6 without a zone (`%eth0`): a zone is free text, and no relay needs one. */
const IPV6_CHARACTERS = /^[0-9A-Fa-f:.]+$/;

function isHostName(host: string): boolean {
  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  if (name.length === 0 || name.length > MAX_HOST_NAME_LENGTH) return false;
  const labels = name.split('.');
  return labels.every((label) => LABEL.test(label)) && !NUMERIC_LABEL.test(labels.at(-1)!);
}

export function isValidSmtpHost(host: string): boolean {
  if (isIPv4(host)) return true;
  if (IPV6_CHARACTERS.test(host) && host.includes(':')) return isIPv6(host);
  return isHostName(host);
}

/** The `host` field of an SMTP relay: trimmed, then a host name or an IP address (400 `invalid_host` otherwise). */
export function smtpHostField() {
  return z.string().trim().refine(isValidSmtpHost, { params: { code: INVALID_HOST } });
}
