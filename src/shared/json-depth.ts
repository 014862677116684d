/**
 * Whether objects and arrays nest more than `levels` deep, the value itself
 * counting as the first level. Iterative and stopping at the limit, so a
 * hostile nesting costs neither a deep stack nor a walk past the limit.
 */
export function nestsDeeperThan(root: unknown, levels: number): boolean {
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth > levels) return true;
    for (const inner of Object.values(value)) stack.push([inner, depth + 1]);
  }
  return false;
}
