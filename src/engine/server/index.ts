/** The engine's TCP server: connections, framing, and routing of messages to the dispatcher. */
export { startWireServer, type WireServer, type WireServerOptions } from './wire-server.js';
