/**
 * CRC-32C (Castagnoli), the checksum OP_MSG uses. Node's zlib only offers
 * plain CRC-32, so this is a small table-driven implementation (reflected
 * polynomial 0x82F63B78). Only messages that carry a checksum pay for it.
 */
const TABLE = buildTable();

function buildTable(): Uint32Array {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

/** CRC-32C of `bytes`; pass a previous result as `crc` to continue over several parts. */
export function crc32c(bytes: Uint8Array, crc = 0): number {
  let c = ~crc >>> 0;
  for (let i = 0; i < bytes.length; i++) c = TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}
