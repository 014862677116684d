import { mongoError } from '../errors.js';
import type { Document } from './types.js';
import { isPlainObject } from './values.js';

/**
 * mongod validates every command's BSON before reading it: no object or
 * array, empty or not, nested below level 201 (the body is level 1; its
 * maxBSONDepth of 200 counts the frames above one), else Overflow (15)
 * "BSONObj exceeded maximum nested object depth: 200", whatever the command:
 * a filter, a pipeline, a document. (Stored documents have their own, lower
 * limit of 180 levels: storage/collection-data.ts.) The walk is iterative,
 * so a deep value cannot exhaust the stack here.
 */

const MAX_BSON_DEPTH = 200;

export function assertCommandDepth(body: Document): void {
  const stack: Array<[unknown, number]> = [[body, 1]];
  while (stack.length > 0) {
    const [value, level] = stack.pop()!;
    const children = Array.isArray(value) ? value : isPlainObject(value) ? Object.values(value) : undefined;
    if (!children) continue;
    if (level > MAX_BSON_DEPTH + 1) throw mongoError('Overflow', `BSONObj exceeded maximum nested object depth: ${MAX_BSON_DEPTH}`);
    for (const child of children) if (typeof child === 'object' && child !== null) stack.push([child, level + 1]);
  }
}
