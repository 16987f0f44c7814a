/**
 * Makes the V8 code caches of the single binary's chunks (scripts/build.ts
 * bundles this file and runs it with the target's own Node runtime, under
 * qemu for another architecture: a code cache loads only in the V8, and with
 * the V8 flags, that made it).
 *
 * Usage: node code_cache.cjs CHUNK_DIR WORK_DIR
 *
 * Loads the warm-up's entry chunk from CHUNK_DIR with the binary's own loader
 * (scripts/sea/chunk_loader.ts) and runs it (scripts/sea/warmup.ts: the
 * start-up commands, for real, in WORK_DIR), so that the functions those runs
 * compiled are in the caches of the chunks they loaded; every other chunk gets
 * a cache of its top level. Writes `<chunk>.cache` beside each chunk and prints
 * one line of JSON: the chunks, those the warm-up loaded, the caches' bytes.
 *
 * @module
 */

import * as fs from "node:fs";
import * as path from "node:path";
import { Script } from "node:vm";
import { builtinModule, CACHE_SUFFIX, chunkLoader, WARMUP_CHUNK } from "./chunk_loader.ts";

const [dir, work] = process.argv.slice(2);
if (!dir || !work) throw new Error("usage: code_cache.cjs CHUNK_DIR WORK_DIR");
const source = (name: string) => fs.readFileSync(path.join(dir, name), "latin1");
const scripts = new Map<string, Script>();
const load = chunkLoader(
  (name) => ({ source: source(name) }),
  Script,
  builtinModule,
  (name, script) => void scripts.set(name, script),
);
if (fs.existsSync(path.join(dir, WARMUP_CHUNK))) {
  await (load(WARMUP_CHUNK) as { warmUp(dir: string): Promise<unknown> }).warmUp(work);
}
const chunks = (fs.readdirSync(dir, { recursive: true }) as string[])
  .map((f) => f.split(path.sep).join("/"))
  .filter((f) => f.endsWith(".js") && f !== WARMUP_CHUNK)
  .sort();
let bytes = 0;
for (const name of chunks) {
  const script = scripts.get(name) ?? new Script(source(name), { filename: name });
  const cache = script.createCachedData();
  fs.writeFileSync(path.join(dir, name + CACHE_SUFFIX), cache);
  bytes += cache.length;
}
process.stdout.write(JSON.stringify({ chunks: chunks.length, warmed: scripts.size, bytes }) + "\n");
