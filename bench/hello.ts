/**
 * The start-up baseline: a plain hello world, run and built the same way as
 * joinkit. It imports nothing (no `node:process`), so under `deno run` it
 * pays none of the Node-compatibility start-up that joinkit pays.
 *
 * @module
 */

// deno-lint-ignore no-console
console.log("hello");
