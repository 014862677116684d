/**
 * A frame the engine cannot read (bad length, bad checksum, invalid BSON,
 * unsupported opcode). The connection that sent it is closed; the message
 * never includes document contents, so it is safe to log.
 */
export class WireProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WireProtocolError';
  }
}
