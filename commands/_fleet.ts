/**
 * What the bulk certificate commands (`cert inspect`, `cert verify`) set up
 * for a fleet run. Node's built-ins through the `process` global (under Deno
 * an import of node:process alone costs start-up).
 *
 * @module
 */

/**
 * Compiler settings for a fleet run, for the rest of the process. Where V8
 * has Maglev (V8 ≥ 12: Node 22+, Deno 2), no TurboFan: a fleet's parse,
 * summary and report functions get hot within its first thousand
 * certificates, and TurboFan's compiling them costs more CPU than its faster
 * code saves over Maglev's at these sizes (binary, Node 24, interleaved: 1,000,
 * 10,000 and 30,000 certificates 8–10% less CPU). Older V8 (Node 20) has no
 * Maglev tier to fall back on, so there a smaller TurboFan inlining budget
 * (920 → 200 bytes of bytecode a function: background compile ~300 → ~210 ms
 * at 10,000, the run ~8% less CPU). Only the compiler's heuristics change,
 * never what the code computes; a runtime that refuses a flag runs as before.
 *
 * Call it once the modules the run needs are loaded: a flag changes V8's flag
 * hash, and V8 then refuses every code cache made under the old one, Node's
 * own for its built-in modules (node:tty 0.6 → 2.4 ms to load, node:crypto
 * 3.5 → 5.3 ms) and the single binary's for its chunks (each is compiled from
 * its source instead: docs/binary.md).
 */
export function fleetCompilerFlags(): void {
  try {
    const v8 = process.getBuiltinModule("node:v8");
    v8.setFlagsFromString("--max-inlined-bytecode-size-cumulative=200");
    if (Number.parseInt(process.versions.v8 ?? "0", 10) >= 12) {
      v8.setFlagsFromString("--no-turbofan");
    }
  } catch {
    // Flags frozen or absent: the defaults.
  }
}
