/** The wire protocol's public face: framing and the OP_MSG / OP_QUERY / OP_REPLY codecs. It knows nothing of commands. */
export { crc32c } from './crc32c.js';
export { encodeDocument, SELF_ENCODER, type BodyEncoder, type ReplyAllocator } from './document-codec.js';
export { FrameReader } from './frame-reader.js';
export { readHeader, type MessageHeader } from './message-header.js';
export { encodeOpMsg, parseOpMsg, type OpMsg, type OpMsgToEncode } from './op-msg-codec.js';
export { encodeOpQuery, encodeOpReply, parseOpQuery, parseOpReply, type OpQuery, type OpReply } from './op-query-codec.js';
export { encodeCursorReply, encodeExhaustedFirstBatchReply, type BatchKey } from './raw-cursor-reply.js';
export { encodeUpdatedValueReply } from './raw-modify-reply.js';
export { HEADER_SIZE, MAX_BSON_OBJECT_SIZE, MAX_MESSAGE_SIZE, MsgFlag, OpCode } from './wire-constants.js';
export { WireProtocolError } from './wire-protocol-error.js';
