/**
 * The single binary's main script (the SEA's `main`): loads the CLI's entry
 * chunk from the binary's assets with {@link chunkLoader}, each chunk with the
 * V8 code cache the build made for it (`<chunk>.cache`, absent in a binary
 * built without one). scripts/build.ts bundles this file into the blob.
 *
 * `JOINKIT_CODE_CACHE_REPORT=1` makes the binary say on stderr, as it exits,
 * how many chunks it loaded and which code caches V8 refused (a cache made by
 * another V8, or with other V8 flags, is refused and the chunk compiled from
 * its source: slower, never wrong). The build's smoke test asks for it.
 *
 * @module
 */

import { Script } from "node:vm";
import {
  builtinModule,
  CACHE_SUFFIX,
  chunkLoader,
  CODE_CACHE_REPORT,
  MAIN_CHUNK,
} from "./chunk_loader.ts";

/** node:sea, which Deno's types do not know. */
interface Sea {
  getRawAsset(key: string): ArrayBuffer;
}
const { getRawAsset } = process.getBuiltinModule("node:sea" as "node:fs") as unknown as Sea;

function cacheOf(name: string): Uint8Array | undefined {
  try {
    return new Uint8Array(getRawAsset(name + CACHE_SUFFIX));
  } catch {
    return undefined; // built without code caches (an arm64 binary made without qemu)
  }
}

const report = process.env[CODE_CACHE_REPORT] === "1";
const loaded: string[] = [];
const refused: string[] = [];
let cached = 0;
const load = chunkLoader(
  (name) => ({
    // ASCII only (scripts/build.ts): latin1 is the cheapest exact decoding.
    source: Buffer.from(getRawAsset(name)).toString("latin1"),
    cache: cacheOf(name),
  }),
  Script,
  builtinModule,
  report
    ? (name, script) => {
      loaded.push(name);
      if (script.cachedDataRejected === true) refused.push(name);
      else if (script.cachedDataRejected === false) cached++;
    }
    : undefined,
);
if (report) {
  process.on("exit", () => {
    process.stderr.write(
      `code cache: ${loaded.length} chunks loaded, ${cached} from their cache, ${refused.length} refused${
        refused.length ? ": " + refused.join(" ") : ""
      }\n`,
    );
  });
}
load(MAIN_CHUNK);
