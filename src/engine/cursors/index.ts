/** Open cursors of every connection, and the replies of commands that open or continue one. */
export { CursorStore, firstBatchReply, nextBatchReply } from './cursor-store.js';
export type { BatchResult, KillCursorsResult } from './cursor-store.js';
