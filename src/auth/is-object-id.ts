/**
 * A record id as clients and tokens carry it: 24 hex characters. (mongoose's
 * own `isValid` also accepts any 12-character string.)
 */
export function isObjectIdString(value: string): boolean {
  return /^[0-9a-f]{24}$/i.test(value);
}
