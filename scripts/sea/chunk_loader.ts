/**
 * The single binary's module loader. scripts/build.ts bundles joinkit as
 * esbuild's split ESM output (an entry chunk per entry point, a chunk per
 * lazily imported command, shared chunks between them), turns each chunk into
 * one CommonJS function expression, `(function (exports, require, module)
 * {…})`, and stores it in the binary with the V8 code cache made for it at
 * build time. This loader compiles a chunk the first time something requires
 * it, with its code cache (V8 then skips parsing and compiling what the cache
 * holds), and runs it once.
 *
 * Why chunks and not one script: V8 deserialises a script's whole code cache
 * before the script runs, and a one-file bundle's top level declares every
 * function of every command (esbuild hoists them); a start-up command would pay
 * for all of them. With chunks it pays for what it loads. (A V8 startup
 * snapshot pays per object too, and more: every start-up deserialises it
 * whole and rehashes its tables; docs/binary.md.)
 *
 * A code cache holds compiled code, never a value of the run that made it:
 * the build may run real commands to fill it (scripts/sea/warmup.ts).
 *
 * @module
 */

import type { Script } from "node:vm";

/** A chunk's source and the code cache made for it, if any. */
export interface Chunk {
  source: string;
  cache?: Uint8Array | undefined;
}

/** The entry chunk of the CLI (main.ts), as scripts/build.ts names it. */
export const MAIN_CHUNK = "main.js";

/** The entry chunk of the build-time warm-up (scripts/sea/warmup.ts). */
export const WARMUP_CHUNK = "warmup.js";

/**
 * The environment variable that makes the binary report, as it exits, the
 * chunks it loaded and the code caches V8 refused (scripts/sea/sea_main.ts).
 */
export const CODE_CACHE_REPORT = "JOINKIT_CODE_CACHE_REPORT";

/** The suffix of a chunk's code cache beside it: `main.js` → `main.js.cache`. */
export const CACHE_SUFFIX = ".cache";

/**
 * The chunk `spec` names when chunk `from` requires it: esbuild writes
 * relative specifiers (`./chunk-X.js`, `../c/chunk-X.js`) between chunks.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(resolveChunk("main.js", "./c/chunk-A.js"), "c/chunk-A.js");
 * assert.equal(resolveChunk("c/ca_hash-B.js", "./chunk-A.js"), "c/chunk-A.js");
 * assert.equal(resolveChunk("c/x/y.js", "../../main.js"), "main.js");
 * ```
 */
export function resolveChunk(from: string, spec: string): string {
  const parts = from.split("/");
  parts.pop();
  for (const p of spec.split("/")) {
    if (p === "." || p === "") continue;
    if (p === "..") {
      if (parts.length === 0) throw new Error(`chunk ${spec} from ${from} is outside the bundle`);
      parts.pop();
    } else parts.push(p);
  }
  return parts.join("/");
}

/** What a chunk's function is called with. */
interface ChunkModule {
  exports: Record<string, unknown>;
}

/**
 * A `require` for chunks: `load(name)` compiles and runs chunk `name` once
 * (`read` gives its source and cache; `ScriptClass` is node:vm's Script) and
 * returns its exports; a chunk's `require` of another chunk (a relative
 * specifier) goes back to `load`, anything else to `builtin` (Node's own
 * modules: nothing else is left unbundled). `compiled` hears of each script
 * (the build keeps them to write their code caches; the binary counts
 * rejected caches when asked).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Script } from "node:vm";
 * const chunks: Record<string, string> = {
 *   "main.js": '(function (exports, require, module) { exports.v = require("./c/a.js").a + 1; })',
 *   "c/a.js": "(function (exports, require, module) { exports.a = 41; })",
 * };
 * const load = chunkLoader((n) => ({ source: chunks[n]! }), Script, () => undefined);
 * assert.equal((load("main.js") as { v: number }).v, 42);
 * ```
 */
export function chunkLoader(
  read: (name: string) => Chunk,
  ScriptClass: typeof Script,
  builtin: (spec: string) => unknown,
  compiled?: (name: string, script: Script) => void,
): (name: string) => unknown {
  const modules = new Map<string, ChunkModule>();
  // A chunk whose top level threw stays failed, as an ES module does: every later require of it
  // throws the same error (a second run could repeat side effects; an entry left half-built
  // would hand out the exports it had made so far).
  const failed = new Map<string, unknown>();
  const load = (name: string): unknown => {
    if (failed.has(name)) throw failed.get(name);
    const known = modules.get(name);
    if (known) return known.exports;
    const module: ChunkModule = { exports: {} };
    // Registered before it runs: chunks may require each other in a circle, as ES modules may.
    modules.set(name, module);
    try {
      const { source, cache } = read(name);
      const script = new ScriptClass(source, {
        filename: name,
        ...(cache ? { cachedData: cache } : {}),
      });
      compiled?.(name, script);
      const require = (spec: string) =>
        spec.startsWith("./") || spec.startsWith("../")
          ? load(resolveChunk(name, spec))
          : builtin(spec);
      (script.runInThisContext() as (e: unknown, r: unknown, m: ChunkModule) => void)(
        module.exports,
        require,
        module,
      );
    } catch (e) {
      modules.delete(name);
      failed.set(name, e);
      throw e;
    }
    return module.exports;
  };
  return load;
}

/**
 * Node's built-in module `spec`, for a chunk's `require`; throws as Node's
 * require does for anything else.
 */
export function builtinModule(spec: string): unknown {
  const mod = process.getBuiltinModule(spec);
  if (mod === undefined) {
    throw Object.assign(new Error(`Cannot find module '${spec}'`), { code: "MODULE_NOT_FOUND" });
  }
  return mod;
}
