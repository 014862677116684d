/** The engine's wire server (TCP or unix socket): connections, framing, and routing of messages to the dispatcher. */
export { startWireServer, type ListenAt, type WireServer, type WireServerOptions } from './wire-server.js';
export { claimSocketPath, MAX_SOCKET_PATH_BYTES, SocketPathError, type ClaimedSocketPath, type SocketOptions } from './unix-socket.js';
