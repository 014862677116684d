/** Numbers of the MongoDB wire protocol (opcodes, OP_MSG flag bits, limits). */
export const OpCode = {
  OP_REPLY: 1,
  OP_QUERY: 2004,
  OP_COMPRESSED: 2012,
  OP_MSG: 2013,
} as const;

export const HEADER_SIZE = 16;

/** OP_MSG flagBits. Bits 0-15 are required: an unknown one set there is an error. */
export const MsgFlag = {
  checksumPresent: 1 << 0,
  moreToCome: 1 << 1,
  exhaustAllowed: 1 << 16,
} as const;
const REQUIRED_FLAG_BITS = 0xffff;
export const UNKNOWN_REQUIRED_FLAGS = REQUIRED_FLAG_BITS & ~(MsgFlag.checksumPresent | MsgFlag.moreToCome);

/** What hello advertises as maxMessageSizeBytes; a larger frame closes the connection. */
export const MAX_MESSAGE_SIZE = 48_000_000;
/** What hello advertises as maxBsonObjectSize. */
export const MAX_BSON_OBJECT_SIZE = 16 * 1024 * 1024;
