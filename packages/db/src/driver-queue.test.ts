import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/**
 * postgres.js keeps its pools' connections and its queued queries in this queue; our patch
 * (patches/postgres@3.4.9.patch) rewrote how it stores them. Every query of the API goes
 * through it, so the patched queue must still behave as a first-in, first-out queue with
 * removal, in both module formats the package ships. (What the patch is for, the cost per
 * query staying flat, is timing: bench/src/driver-pool.ts measures it.)
 */
interface Queue<T> {
  readonly length: number;
  push(item: T): T;
  shift(): T | undefined;
  remove(item: T): T | null;
}
type QueueFactory = <T>(initial?: T[]) => Queue<T>;

const require = createRequire(import.meta.url);
const cjsDir = dirname(require.resolve('postgres'));
const formats: [string, () => Promise<QueueFactory>][] = [
  ['CommonJS', () => Promise.resolve(require(join(cjsDir, 'queue.js')) as QueueFactory)],
  ['ES module', async () => ((await import(pathToFileURL(join(cjsDir, '../../src/queue.js')).href)) as { default: QueueFactory }).default],
];

type Op = { kind: 'push' } | { kind: 'shift' } | { kind: 'remove'; pick: number };
/** Mostly pushes and shifts (so the queue runs long without emptying), some removals. */
const op = fc.oneof(
  { weight: 5, arbitrary: fc.constant<Op>({ kind: 'push' }) },
  { weight: 4, arbitrary: fc.constant<Op>({ kind: 'shift' }) },
  { weight: 2, arbitrary: fc.nat(50).map<Op>((pick) => ({ kind: 'remove', pick })) },
);

describe.each(formats)('postgres.js queue (%s), as patched', (_format, load) => {
  it('answers every push, shift and remove as a plain array would', async () => {
    const Queue = await load();
    fc.assert(
      fc.property(fc.array(op, { minLength: 3_000, maxLength: 8_000 }), fc.nat(5), (ops, initialSize) => {
        let next = 0;
        const initial = Array.from({ length: initialSize }, () => ({ n: next++ }));
        const queue = Queue(initial);
        const model = [...initial];
        const removedLong = { n: -1 };
        for (const step of ops) {
          if (step.kind === 'push') {
            const item = { n: next++ };
            expect(queue.push(item)).toBe(item);
            model.push(item);
          } else if (step.kind === 'shift') {
            if (model.length === 0) continue; // the pool never shifts an empty queue
            expect(queue.shift()).toBe(model.shift());
          } else {
            // Removing an item that is queued, or one that is not (already shifted or never pushed).
            const item = step.pick < model.length ? model[step.pick]! : removedLong;
            const expected = model.includes(item) ? item : null;
            expect(queue.remove(item)).toBe(expected);
            if (expected !== null) model.splice(model.indexOf(item), 1);
          }
          expect(queue.length).toBe(model.length);
        }
        // What is left comes out in order.
        for (const item of [...model]) expect(queue.shift()).toBe(item);
        expect(queue.length).toBe(0);
      }),
      { numRuns: 20 },
    );
  });

  it('stays correct across many compactions of a queue that never empties', async () => {
    const Queue = await load();
    const queue = Queue<number>();
    queue.push(0);
    for (let i = 1; i <= 20_000; i += 1) {
      queue.push(i);
      expect(queue.shift()).toBe(i - 1);
      expect(queue.length).toBe(1);
    }
    expect(queue.remove(20_000)).toBe(20_000);
    expect(queue.remove(19_999)).toBeNull();
    expect(queue.length).toBe(0);
  });
});
