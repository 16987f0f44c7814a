/**
 * Bounded peak memory for bulk runs on any runtime.
 *
 * A run over 100,000 objects keeps little alive at a time (a piece of input,
 * its objects, a piece of output), but V8 lets garbage pile up before a full
 * collection: `csr sign` of 100,000 CSRs swung between 330 and 470 MiB
 * resident with ~65 MiB live. Node's `--max-old-space-size` would bound it,
 * but the single binary (a Node SEA with a V8 startup snapshot) takes no node
 * flags, and a heap limit set at run time (`v8.setFlagsFromString`) does not
 * change a heap that already exists (measured on Node 20 and Deno 2.9: the
 * limit reported stays the default). So bulk readers call
 * {@link memoryCheckpoint} between pieces of work: when the heap in use
 * passes a mark, it asks V8 for a full collection (`gc`, exposed at run time
 * through a new context, which both runtimes allow). The heap, not the
 * resident set, is what is watched: right after a collection Node's resident
 * set has not fallen yet (pages are given back later), so a resident-set
 * mark would collect over and over. Small runs never reach the mark.
 *
 * `node:v8` and `node:vm` load on the first look at the heap (after 1 MiB
 * of work): every command that reads input reaches this module, and under
 * `deno run` they would cost each one's start-up.
 *
 * @module
 */

import process from "node:process";

/** node:v8, loaded on the first look at the heap. */
let v8: typeof import("node:v8") | undefined;

/** The heap in use, in bytes. */
function heapUsed(): number {
  v8 ??= process.getBuiltinModule("node:v8");
  return v8.getHeapStatistics().used_heap_size;
}

/** Heap in use (bytes) above which a checkpoint collects garbage. */
export const HEAP_MARK = 128 * 1024 * 1024;

/** Bytes of work between two looks at the heap. */
const CHECK_EVERY = 1 << 20;

let mark = HEAP_MARK;
let gc: (() => void) | null | undefined;
let since = 0;

function collector(): (() => void) | null {
  if (gc !== undefined) return gc;
  try {
    v8 ??= process.getBuiltinModule("node:v8");
    v8.setFlagsFromString("--expose-gc");
    const f = process.getBuiltinModule("node:vm").runInNewContext("gc") as unknown;
    gc = typeof f === "function" ? f as () => void : null;
  } catch {
    gc = null; // a runtime without it: nothing to do
  }
  return gc;
}

/**
 * Called by bulk readers after each piece of work (`bytes`: about how much
 * input it was): about every MiB, if the heap in use is above the mark,
 * collects garbage; the next mark is then twice what is still live (at
 * least {@link HEAP_MARK}), so a run that keeps a large live set (token
 * list keeps its tokens) is not collected over and over.
 */
export function memoryCheckpoint(bytes: number): void {
  since += bytes;
  if (since < CHECK_EVERY) return;
  since = 0;
  if (heapUsed() < mark) return;
  const g = collector();
  if (!g) return;
  g();
  mark = Math.max(HEAP_MARK, 2 * heapUsed());
}
