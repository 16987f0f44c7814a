/**
 * Progress of long runs on stderr: after about a second, a status line
 * redrawn in place (`token list: 40000 objects, 21000/s`), erased at the end.
 * Only when stderr is a terminal (`ctx.progress` is absent otherwise), so
 * pipes, files and tests see nothing.
 *
 * @module
 */

import type { Context } from "./_command.ts";

/** Counts objects for one run. */
export interface Progress {
  /** `n` more objects done. */
  tick(n?: number): void;
  /** The run is over: erases the status line if one was shown. */
  done(): void;
}

const NONE: Progress = { tick() {}, done() {} };

/** Shown only once a run has taken this long. */
export const PROGRESS_AFTER_MS = 1000;
/** Redrawn at most this often. */
const EVERY_MS = 200;

/**
 * A progress counter for `what` (the command's name), drawing through
 * `ctx.progress`; a no-op when stderr is not a terminal.
 *
 * @example
 * ```ts ignore
 * const p = progress(ctx, "csr sign");
 * for (const obj of objects) { sign(obj); p.tick(); }
 * p.done();
 * ```
 */
export function progress(
  ctx: Pick<Context, "progress">,
  what: string,
  clock: () => number = () => performance.now(),
): Progress {
  const draw = ctx.progress;
  if (!draw) return NONE;
  const start = clock();
  let count = 0;
  let last = -Infinity;
  let shown = false;
  return {
    tick(n = 1) {
      count += n;
      const t = clock();
      if (t - start < PROGRESS_AFTER_MS || t - last < EVERY_MS) return;
      last = t;
      shown = true;
      const rate = Math.round(count / ((t - start) / 1000));
      draw(`${what}: ${count} objects, ${rate}/s`);
    },
    done() {
      if (shown) draw("");
      shown = false;
    },
  };
}
