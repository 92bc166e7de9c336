/**
 * Quota values as the admin quota screen shows and takes them. Seats are whole numbers; byte
 * quotas are entered in MB or GB (steps of 1024, as sizes are shown everywhere else, see
 * editor/src/files/fileViews.ts) and sent as whole bytes. A comma or a point may mark decimals.
 */
export const QUOTA_NAMES = ['editors_per_pond', 'readers_per_pond', 'storage_bytes', 'max_file_bytes'] as const;
export type QuotaName = (typeof QUOTA_NAMES)[number];

export const BYTE_UNITS = { MB: 1024 ** 2, GB: 1024 ** 3 } as const;
export type ByteUnit = keyof typeof BYTE_UNITS;

export type AmountProblem = 'required' | 'notNumber' | 'negative' | 'notWhole' | 'tooLarge';

export function isByteQuota(quota: QuotaName): boolean {
  return quota === 'storage_bytes' || quota === 'max_file_bytes';
}

/** What the field holds → the value to send, or why it cannot be sent. */
export function amountToValue(quota: QuotaName, text: string, unit: ByteUnit): { value: number } | { problem: AmountProblem } {
  const trimmed = text.trim();
  if (trimmed === '') return { problem: 'required' };
  if (!/^-?\d+([.,]\d+)?$/.test(trimmed)) return { problem: 'notNumber' };
  const amount = Number(trimmed.replace(',', '.'));
  if (amount < 0) return { problem: 'negative' };
  if (!isByteQuota(quota)) {
    if (!Number.isInteger(amount)) return { problem: 'notWhole' };
    return amount > Number.MAX_SAFE_INTEGER ? { problem: 'tooLarge' } : { value: amount };
  }
  const bytes = Math.round(amount * BYTE_UNITS[unit]);
  return bytes > Number.MAX_SAFE_INTEGER ? { problem: 'tooLarge' } : { value: bytes };
}

/**
 * A stored value → what the field starts with: GB when it is a whole number of them, else MB
 * with enough decimals to give the same bytes back; a German field writes a decimal comma.
 */
export function valueToAmount(quota: QuotaName, value: number | null, decimalComma = false): { text: string; unit: ByteUnit } {
  if (value === null) return { text: '', unit: 'MB' };
  if (!isByteQuota(quota)) return { text: String(value), unit: 'MB' };
  if (value >= BYTE_UNITS.GB && value % BYTE_UNITS.GB === 0) return { text: String(value / BYTE_UNITS.GB), unit: 'GB' };
  const megabytes = String(Number((value / BYTE_UNITS.MB).toFixed(6)));
  return { text: decimalComma ? megabytes.replace('.', ',') : megabytes, unit: 'MB' };
}
