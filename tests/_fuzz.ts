/**
 * A small, seeded, reproducible fuzz harness for joinkit's parsers.
 *
 * Every target is fed its valid samples unchanged (they must parse), then
 * thousands of random mutations of them: bit flips, truncations, insertions,
 * deletions, splices, NUL bytes, invalid UTF-8, huge repetitions, deep
 * nesting and (for structured samples) wrong types and huge values. Each call
 * must either return a valid result (checked by the target's `check`) or throw
 * a `JoinkitError` with a short, non-empty message. Anything else (a
 * `TypeError`, a `RangeError` from a blown stack, a result that fails the
 * check, or a call slower than {@link SLOW_MS}) fails the test and prints the
 * seed, the iteration, the mutation and the input (hex, truncated).
 *
 * Environment:
 * - `JOINKIT_FUZZ_SEED`: the base seed (default {@link DEFAULT_SEED}); each
 *   target derives its own from it and its name, so a target replays alone.
 * - `JOINKIT_FUZZ_SCALE`: multiplies every target's iteration count
 *   (default 1; e.g. `JOINKIT_FUZZ_SCALE=20` for a long local run).
 * - `JOINKIT_FUZZ_ITERATIONS`: a fixed iteration count for every target.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { createPrivateKey } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import process from "node:process";
import { AssertionError } from "node:assert/strict";
import { JoinkitError } from "../lib/base/errors.ts";
import { runInProcess } from "./_cli.ts";

export { JoinkitError };

/** The seed used when `JOINKIT_FUZZ_SEED` is not set. */
export const DEFAULT_SEED = 0x6a6f696e; // "join"

/** A call slower than this (ms) counts as a hang. Generous: CI shares 2 cores. */
export const SLOW_MS = Number(process.env.JOINKIT_FUZZ_SLOW_MS ?? 3000);

/** Print every input before running it (`JOINKIT_FUZZ_TRACE=1`). */
const TRACE = !!process.env.JOINKIT_FUZZ_TRACE;

/** Longest error message accepted (a message echoing a huge input is a bug). */
export const MAX_MESSAGE = 1000;

/** The base seed for this run. */
export function fuzzSeed(): number {
  const env = process.env.JOINKIT_FUZZ_SEED;
  if (env === undefined || env === "") return DEFAULT_SEED;
  const n = Number(env);
  if (!Number.isInteger(n)) throw new Error(`JOINKIT_FUZZ_SEED must be an integer, got ${env}`);
  return n >>> 0;
}

/** The iteration count for a target whose default is `def`. */
export function iterations(def: number): number {
  const fixed = process.env.JOINKIT_FUZZ_ITERATIONS;
  if (fixed) return Math.max(0, Math.floor(Number(fixed)));
  const scale = Number(process.env.JOINKIT_FUZZ_SCALE ?? 1);
  return Math.max(1, Math.floor(def * (Number.isFinite(scale) ? scale : 1)));
}

/** mulberry32: a tiny 32-bit seeded PRNG, returning floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a hash of a string, to derive per-target seeds. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A seeded random source with the helpers mutators need. */
export class Rng {
  readonly #next: () => number;
  constructor(seed: number) {
    this.#next = mulberry32(seed);
  }
  /** A float in [0, 1). */
  float(): number {
    return this.#next();
  }
  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.#next() * n);
  }
  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.#next() < p;
  }
  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  /** `n` random bytes. */
  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.int(256);
    return out;
  }
}

const te = new TextEncoder();

/** Interesting byte strings spliced in by the mutators. */
export const DICTIONARY: readonly Uint8Array[] = [
  "\0",
  "\r\n",
  "\n",
  "\r",
  "\t",
  " ",
  "\uFEFF",
  "-----BEGIN ",
  "-----END ",
  "-----",
  "CERTIFICATE",
  "PRIVATE KEY",
  "Proc-Type: 4,ENCRYPTED\n\n",
  "=",
  "==",
  "---\n",
  "...\n",
  "&a ",
  "*a",
  "<<: *a",
  "!!binary ",
  "!!str ",
  "? ",
  "- ",
  ": ",
  "{",
  "}",
  "[",
  "]",
  '"',
  "'",
  "\\",
  "\\u0000",
  "null",
  "true",
  "~",
  "0x",
  "-",
  "+",
  ".",
  "e308",
  "9999999999999999999999",
  "18446744073709551616",
  "1.7976931348623157e309",
  "NaN",
  "-0",
  "µ",
  "h",
  "ns",
  "Z",
  "T",
  "+23:59",
  "60",
  "2026-02-29T",
  "\u202e",
  "\ud800",
].map((s) => te.encode(s)).concat([
  new Uint8Array([0xc3]),
  new Uint8Array([0xff, 0xfe]),
  new Uint8Array([0xc0, 0x80]),
  new Uint8Array([0xed, 0xa0, 0x80]),
  new Uint8Array([0xf4, 0x90, 0x80, 0x80]),
  new Uint8Array([0x30, 0x80]),
  new Uint8Array([0x30, 0x84, 0xff, 0xff, 0xff, 0xff]),
  new Uint8Array([0x02, 0x00]),
  new Uint8Array([0x06, 0x00]),
  new Uint8Array([0x05, 0x00]),
  new Uint8Array([0x1f]),
  new Uint8Array([0x80]),
]);

const INTERESTING_BYTES = [0x00, 0x01, 0x7f, 0x80, 0x81, 0xff, 0x30, 0x2d, 0x0a, 0x0d, 0x20, 0x3a];

function concat(...parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}

/** Mutates bytes once; returns the new bytes and a short description. */
export function mutateOnce(
  rng: Rng,
  input: Uint8Array,
  pool: readonly Uint8Array[],
): { bytes: Uint8Array; how: string } {
  const n = input.length;
  const at = () => rng.int(n + 1);
  switch (rng.int(16)) {
    case 0: {
      if (n === 0) return { bytes: rng.bytes(1 + rng.int(8)), how: "random" };
      const out = input.slice();
      const flips = 1 + rng.int(4);
      for (let i = 0; i < flips; i++) out[rng.int(n)]! ^= 1 << rng.int(8);
      return { bytes: out, how: `flip ${flips} bits` };
    }
    case 1: {
      if (n === 0) return { bytes: input, how: "noop" };
      const out = input.slice();
      const i = rng.int(n);
      out[i] = rng.pick(INTERESTING_BYTES);
      return { bytes: out, how: `set byte ${i}` };
    }
    case 2: {
      const i = rng.int(n);
      return { bytes: input.slice(0, i), how: `truncate at ${i}` };
    }
    case 3: {
      const i = at(), len = 1 + rng.int(Math.max(1, Math.min(64, n - i)));
      return {
        bytes: concat(input.subarray(0, i), input.subarray(i + len)),
        how: `delete ${i}+${len}`,
      };
    }
    case 4: {
      const i = at(), add = rng.bytes(1 + rng.int(16));
      return {
        bytes: concat(input.subarray(0, i), add, input.subarray(i)),
        how: `insert random at ${i}`,
      };
    }
    case 5:
    case 6: {
      const i = at(), word = rng.pick(DICTIONARY);
      return {
        bytes: concat(input.subarray(0, i), word, input.subarray(i)),
        how: `insert dict at ${i}`,
      };
    }
    case 7: {
      const i = at();
      return {
        bytes: concat(input.subarray(0, i), new Uint8Array([0]), input.subarray(i)),
        how: `NUL at ${i}`,
      };
    }
    case 8: {
      // Duplicate a range, possibly many times (huge inputs, bounded at ~256 KiB).
      if (n === 0) return { bytes: input, how: "noop" };
      const i = rng.int(n), len = 1 + rng.int(Math.min(256, n - i));
      const reps = rng.chance(0.2) ? 1 + rng.int(Math.floor(262_144 / len)) : 1 + rng.int(8);
      const chunk = input.subarray(i, i + len);
      const rep = new Uint8Array(chunk.length * reps);
      for (let r = 0; r < reps; r++) rep.set(chunk, r * chunk.length);
      return {
        bytes: concat(input.subarray(0, i), rep, input.subarray(i)),
        how: `repeat ${i}+${len} x${reps}`,
      };
    }
    case 9: {
      // Splice with another sample.
      const other = rng.pick(pool);
      const i = at(), j = rng.int(other.length + 1);
      return { bytes: concat(input.subarray(0, i), other.subarray(j)), how: `splice at ${i}/${j}` };
    }
    case 10: {
      // Swap two ranges.
      if (n < 4) return { bytes: input, how: "noop" };
      const a = rng.int(n), b = rng.int(n);
      const [lo, hi] = a < b ? [a, b] : [b, a];
      const mid = lo + Math.floor((hi - lo) / 2);
      return {
        bytes: concat(
          input.subarray(0, lo),
          input.subarray(mid, hi),
          input.subarray(lo, mid),
          input.subarray(hi),
        ),
        how: `swap ${lo}/${mid}/${hi}`,
      };
    }
    case 11: {
      // Deep nesting around a point.
      const depth = rng.pick([64, 1000, 20_000, 100_000]);
      const [open, close] = rng.pick([["[", "]"], ["{", "}"], ["- ", ""], ["\x30\x80", "\0\0"]]);
      const i = at();
      return {
        bytes: concat(
          input.subarray(0, i),
          te.encode(open!.repeat(depth)),
          input.subarray(i),
          te.encode(close!.repeat(depth)),
        ),
        how: `nest ${JSON.stringify(open)} x${depth} at ${i}`,
      };
    }
    case 12: {
      // A long run of one byte.
      const i = at(), len = rng.pick([100, 10_000, 300_000]);
      const b = rng.pick([0x00, 0x20, 0x30, 0x39, 0x41, 0x2d, 0x0a, 0xff]);
      return {
        bytes: concat(input.subarray(0, i), new Uint8Array(len).fill(b), input.subarray(i)),
        how: `run 0x${b.toString(16)} x${len} at ${i}`,
      };
    }
    case 13: {
      // Change a digit or a letter's case (keeps most structure).
      if (n === 0) return { bytes: input, how: "noop" };
      const out = input.slice();
      const i = rng.int(n);
      const c = out[i]!;
      if (c >= 0x30 && c <= 0x39) out[i] = 0x30 + rng.int(10);
      else if (c >= 0x61 && c <= 0x7a) out[i] = c - 0x20;
      else if (c >= 0x41 && c <= 0x5a) out[i] = c + 0x20;
      else out[i] = rng.int(128);
      return { bytes: out, how: `tweak ${i}` };
    }
    case 14: {
      // Non-UTF-8 bytes.
      const i = at();
      const bad = rng.pick([[0xff], [0xc3, 0x28], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [
        0xed,
        0xb0,
        0x80,
      ], [0xfe, 0xff]]);
      return {
        bytes: concat(input.subarray(0, i), new Uint8Array(bad), input.subarray(i)),
        how: `non-utf8 at ${i}`,
      };
    }
    default: {
      // Replace the tail with random bytes.
      const i = at();
      return {
        bytes: concat(input.subarray(0, i), rng.bytes(rng.int(64))),
        how: `random tail at ${i}`,
      };
    }
  }
}

/** Applies 1–4 stacked byte mutations. */
export function mutateBytes(
  rng: Rng,
  input: Uint8Array,
  pool: readonly Uint8Array[],
): { bytes: Uint8Array; how: string } {
  let bytes = input;
  const hows: string[] = [];
  const count = 1 + (rng.chance(0.6) ? 0 : rng.int(4));
  for (let i = 0; i < count; i++) {
    const m = mutateOnce(rng, bytes, pool);
    bytes = m.bytes;
    hows.push(m.how);
  }
  return { bytes, how: hows.join(", ") };
}

/** Decodes bytes as text the way `readInput` does (UTF-8, invalid bytes -> U+FFFD), or sometimes as Latin-1. */
export function bytesToText(rng: Rng, bytes: Uint8Array): string {
  return rng.chance(0.9)
    ? Buffer.from(bytes).toString("utf8")
    : Buffer.from(bytes).toString("latin1");
}

/** Values that break type assumptions. */
function wrongValue(rng: Rng): unknown {
  switch (rng.int(14)) {
    case 0:
      return null;
    case 1:
      return rng.chance(0.5);
    case 2:
      return rng.pick([0, -1, 1e308, -1e308, 2 ** 53 + 1, 0.5, 1e-300]);
    case 3:
      return "";
    case 4:
      return "x".repeat(rng.pick([1000, 100_000]));
    case 5:
      return [];
    case 6:
      return {};
    case 7:
      return [rng.pick(["a", 1, null, {}])];
    case 8:
      return { "": null, "__proto__": { polluted: true }, "constructor": "x" };
    case 9:
      return "\0\u202e\ud800\uffff";
    case 10: {
      let v: unknown = "deep";
      const depth = rng.pick([100, 5000]);
      for (let i = 0; i < depth; i++) v = rng.chance(0.5) ? [v] : { a: v };
      return v;
    }
    case 11:
      return "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
    case 12:
      return "bm90IGEga2V5"; // base64 of "not a key"
    default:
      return rng.bytes(8).join(",");
  }
}

/** Returns a deep copy of `value` with one random node replaced, deleted or renamed. */
export function mutateValue(rng: Rng, value: unknown): { value: unknown; how: string } {
  const copy = structuredClone(value) as unknown;
  const paths: (string | number)[][] = [];
  const walk = (v: unknown, p: (string | number)[]) => {
    paths.push(p);
    if (paths.length > 2000) return;
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...p, i]));
    else if (v !== null && typeof v === "object") {
      for (const k of Object.keys(v)) walk((v as Record<string, unknown>)[k], [...p, k]);
    }
  };
  walk(copy, []);
  const path = rng.pick(paths);
  if (path.length === 0) return { value: wrongValue(rng), how: "replace root" };
  let parent = copy as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
  const key = path[path.length - 1]!;
  const where = path.join(".");
  switch (rng.int(4)) {
    case 0:
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key];
      return { value: copy, how: `delete ${where}` };
    case 1: {
      const v = parent[key];
      if (typeof v === "string") {
        const m = mutateBytes(rng, te.encode(v), [te.encode(v)]);
        parent[key] = Buffer.from(m.bytes).toString("utf8");
        return { value: copy, how: `mutate string ${where}: ${m.how}` };
      }
      parent[key] = wrongValue(rng);
      return { value: copy, how: `wrong type at ${where}` };
    }
    case 2:
      if (!Array.isArray(parent)) {
        const v = parent[key];
        delete parent[key];
        parent[`${String(key)}${rng.pick(["x", "", " ", "\0"])}`.toUpperCase()] = v;
        return { value: copy, how: `rename ${where}` };
      }
      parent.push(structuredClone(parent[key]));
      return { value: copy, how: `duplicate ${where}` };
    default:
      parent[key] = wrongValue(rng);
      return { value: copy, how: `wrong value at ${where}` };
  }
}

/** A hex dump of the first `max` bytes. */
export function hexDump(bytes: Uint8Array, max = 256): string {
  const head = Buffer.from(bytes.subarray(0, max)).toString("hex");
  return bytes.length > max
    ? `${head}… (${bytes.length} bytes)`
    : `${head} (${bytes.length} bytes)`;
}

/** One fuzz target. `T` is what the parser takes: bytes, text or a structured value. */
export interface FuzzTarget<T> {
  /** Name, used in messages and to derive the target's seed. */
  name: string;
  /** Valid inputs; each must parse unchanged. */
  samples: readonly T[];
  /** Default number of mutated inputs (scaled by the environment). */
  iterations: number;
  /** Makes one mutated input from a sample. Default: byte mutations (for bytes/text). */
  mutate?: (rng: Rng, sample: T, samples: readonly T[]) => { input: T; how: string };
  /** The parser under test. */
  run: (input: T) => unknown;
  /** Checks a successful result is valid; throw to fail. */
  check?: (result: unknown, input: T) => void;
  /**
   * Longest input handed to `run`, in bytes or characters (longer mutations are
   * cut): keeps slow parsers' runs short; huge inputs have their own tests.
   */
  maxInput?: number;
  /** Longest error message accepted (default {@link MAX_MESSAGE}). */
  maxMessage?: number;
  /** Turns an input into bytes for the failure report (default: UTF-8 / JSON). */
  show?: (input: T) => Uint8Array;
}

function toBytes(input: unknown): Uint8Array {
  if (input instanceof Uint8Array) return input;
  if (typeof input === "string") return te.encode(input);
  try {
    return te.encode(JSON.stringify(input) ?? String(input));
  } catch {
    return te.encode(String(input));
  }
}

/** The default mutator for byte and text targets. */
export function defaultMutate<T>(
  rng: Rng,
  sample: T,
  samples: readonly T[],
): { input: T; how: string } {
  if (sample instanceof Uint8Array) {
    const m = mutateBytes(rng, sample, samples as readonly Uint8Array[]);
    return { input: m.bytes as T, how: m.how };
  }
  if (typeof sample === "string") {
    const pool = (samples as readonly string[]).map((s) => te.encode(s));
    const m = mutateBytes(rng, te.encode(sample), pool);
    return { input: bytesToText(rng, m.bytes) as T, how: m.how };
  }
  const m = mutateValue(rng, sample);
  return { input: m.value as T, how: m.how };
}

/** What a failing case looked like. */
interface Failure {
  iteration: number;
  how: string;
  input: Uint8Array;
  problem: string;
}

async function once<T>(target: FuzzTarget<T>, input: T): Promise<string | undefined> {
  const started = performance.now();
  let result: unknown;
  let error: unknown;
  let threw = false;
  try {
    result = target.run(input);
    if (result instanceof Promise) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`__hang__`)), SLOW_MS * 2);
      });
      try {
        result = await Promise.race([result, timeout]);
      } finally {
        clearTimeout(timer);
      }
    }
  } catch (e) {
    threw = true;
    error = e;
  }
  const ms = performance.now() - started;
  if (error instanceof Error && error.message === "__hang__") {
    return `hang: no answer after ${SLOW_MS * 2} ms`;
  }
  if (ms > SLOW_MS) return `too slow: ${Math.round(ms)} ms`;
  if (threw) {
    if (!(error instanceof JoinkitError)) {
      const e = error as Error;
      return `threw ${e?.name ?? typeof error} (not a JoinkitError): ${
        e?.message ?? String(error)
      }\n${(e?.stack ?? "").split("\n").slice(1, 6).join("\n")}`;
    }
    const msg = error.message;
    if (typeof msg !== "string" || msg.trim() === "") return `JoinkitError with an empty message`;
    if (msg.length > (target.maxMessage ?? MAX_MESSAGE)) {
      return `error message too long (${msg.length} chars): ${msg.slice(0, 200)}…`;
    }
    return undefined;
  }
  if (target.check) {
    try {
      target.check(result, input);
    } catch (e) {
      return `returned an invalid result: ${(e as Error).message}`;
    }
  }
  return undefined;
}

/**
 * Runs a fuzz target and throws an AssertionError describing the first
 * failures (seed, iteration, mutation, input hex) when any case misbehaves.
 * Returns how many inputs were tried and how many parsed successfully.
 */
export async function fuzz<T>(target: FuzzTarget<T>): Promise<{ tried: number; parsed: number }> {
  const base = fuzzSeed();
  const seed = (base ^ hashString(target.name)) >>> 0;
  const rng = new Rng(seed);
  const show = target.show ?? toBytes;
  const failures: Failure[] = [];
  let parsed = 0;
  // 1. The samples themselves must parse.
  for (const [i, sample] of target.samples.entries()) {
    let ok = true;
    try {
      const r = await target.run(sample);
      target.check?.(r, sample);
    } catch (e) {
      ok = false;
      failures.push({
        iteration: -1,
        how: `valid sample ${i}`,
        input: show(sample),
        problem: `valid sample rejected: ${(e as Error).message}`,
      });
    }
    if (ok) parsed++;
  }
  // 2. Mutations.
  const n = iterations(target.iterations);
  const mutate = target.mutate ?? defaultMutate;
  for (let it = 0; it < n && failures.length < 3; it++) {
    const sample = rng.pick(target.samples);
    const m = mutate(rng, sample, target.samples);
    let { input } = m;
    const { how } = m;
    const max = target.maxInput;
    if (
      max !== undefined && (typeof input === "string" || input instanceof Uint8Array) &&
      input.length > max
    ) {
      input = input.slice(0, max) as T;
    }
    if (TRACE) {
      // JOINKIT_FUZZ_TRACE=1: each input before it runs, to find the one that hangs.
      process.stderr.write(`[fuzz ${target.name}] ${it} [${how}] ${hexDump(show(input), 48)}\n`);
    }
    const problem = await once(target, input);
    if (problem !== undefined) failures.push({ iteration: it, how, input: show(input), problem });
    else parsed++;
  }
  if (failures.length > 0) {
    const lines = [
      `fuzz target "${target.name}" failed (JOINKIT_FUZZ_SEED=${base}, target seed ${seed}, ${n} iterations):`,
    ];
    for (const f of failures) {
      lines.push(
        `- iteration ${f.iteration} [${f.how}]: ${f.problem}`,
        `  input: ${hexDump(f.input)}`,
      );
    }
    lines.push(
      `reproduce: JOINKIT_FUZZ_SEED=${base} node_modules/.bin/deno test -A <file> --filter "${target.name}"`,
    );
    throw new AssertionError({ message: lines.join("\n") });
  }
  return { tried: n + target.samples.length, parsed };
}

// The fuzzers run commands in process through cli.ts's run(), as tests/_cli.ts does.
export { type InProcessResult, runInProcess } from "./_cli.ts";

/** The bootstrap token every fixture uses; its secret must never leak. */
export const FIXTURE_TOKEN = "abcdef.s3cr3tt0k3nv4lu3";
/** The secret half of {@link FIXTURE_TOKEN}. */
export const FIXTURE_SECRET = "s3cr3tt0k3nv4lu3";
/** The clock every fixture is made at. */
export const FIXTURE_NOW = "2026-11-22T00:00:00Z";
/** The API server every fixture names. */
export const FIXTURE_SERVER = "https://10.0.0.1:6443";

/** Paths and contents of a consistent set of inputs, made by joinkit itself. */
export interface Fixtures {
  dir: string;
  /** Absolute paths. */
  caCrt: string;
  caKey: string;
  secrets: string;
  clusterInfo: string;
  nodeKey: string;
  nodeCsr: string;
  csrObject: string;
  nodeCrt: string;
  kubeconfig: string;
  /** The CA's `sha256:` pin. */
  pin: string;
  /** Contents by file name (relative to `dir`). */
  text: Record<string, string>;
}

async function must(argv: string[]): Promise<string> {
  const r = await runInProcess(argv);
  if (r.code !== 0) {
    throw new Error(`fixture ${argv.join(" ")} failed: ${r.stderr} ${String(r.thrown)}`);
  }
  return r.stdout;
}

/**
 * Makes a consistent set of inputs in `dir` with joinkit's own commands (in
 * process): an ECDSA CA, a token Secret, a signed cluster-info, a kubelet key,
 * CSR (PEM and object) and its signed certificate, a bootstrap kubeconfig.
 */
export async function makeFixtures(dir: string): Promise<Fixtures> {
  const p = (n: string) => path.join(dir, n);
  const now = ["--now", FIXTURE_NOW];
  await must(["ca", "create", "--out-dir", dir, "--key-type", "ecdsa-p256", ...now]);
  fs.writeFileSync(p("secrets.yaml"), await must(["token", "create", FIXTURE_TOKEN, ...now]));
  fs.writeFileSync(
    p("cluster-info.yaml"),
    await must([
      "cluster-info",
      "create",
      "--server",
      FIXTURE_SERVER,
      "--ca",
      p("ca.crt"),
      "--token",
      FIXTURE_TOKEN,
      ...now,
    ]),
  );
  const csrDir = p("node");
  fs.writeFileSync(
    p("csr.yaml"),
    await must(["csr", "create", "--node", "worker-1", "--out-dir", csrDir, ...now]),
  );
  const produced = fs.readdirSync(csrDir);
  const keyName = produced.find((f) => f.endsWith(".key"))!;
  const csrName = produced.find((f) => f.endsWith(".csr"))!;
  fs.copyFileSync(path.join(csrDir, keyName), p("node.key"));
  fs.copyFileSync(path.join(csrDir, csrName), p("node.csr"));
  fs.chmodSync(p("node.key"), 0o600);
  fs.writeFileSync(
    p("node.crt"),
    await must([
      "csr",
      "sign",
      p("node.csr"),
      "--ca",
      p("ca.crt"),
      "--ca-key",
      p("ca.key"),
      ...now,
    ]),
  );
  fs.writeFileSync(
    p("kubeconfig"),
    await must([
      "kubeconfig",
      "bootstrap",
      "--server",
      FIXTURE_SERVER,
      "--ca",
      p("ca.crt"),
      "--token",
      FIXTURE_TOKEN,
      ...now,
    ]),
  );
  const pin = (await must(["ca", "hash", p("ca.crt")])).trim().split(/\s+/).pop()!;
  const text: Record<string, string> = {};
  for (
    const f of [
      "ca.crt",
      "ca.key",
      "secrets.yaml",
      "cluster-info.yaml",
      "node.key",
      "node.csr",
      "csr.yaml",
      "node.crt",
      "kubeconfig",
    ]
  ) {
    text[f] = fs.readFileSync(p(f), "utf8");
  }
  return {
    dir,
    caCrt: p("ca.crt"),
    caKey: p("ca.key"),
    secrets: p("secrets.yaml"),
    clusterInfo: p("cluster-info.yaml"),
    nodeKey: p("node.key"),
    nodeCsr: p("node.csr"),
    csrObject: p("csr.yaml"),
    nodeCrt: p("node.crt"),
    kubeconfig: p("kubeconfig"),
    pin,
    text,
  };
}

/**
 * Strings that must never appear where a secret could leak: the token
 * secret, and for each private key its private scalar (`d`, and for RSA the
 * primes) as hex, base64url and base64 at all three byte alignments, plus the
 * first base64 line of its PEM body (which holds the private part). Public
 * key bytes are left out: certificates rightly contain them.
 */
export function secretNeedles(f: Fixtures): string[] {
  return [FIXTURE_SECRET, ...keyNeedles(f.text["ca.key"]!), ...keyNeedles(f.text["node.key"]!)];
}

/** The needles of one private key PEM (see {@link secretNeedles}). */
export function keyNeedles(pem: string): string[] {
  const jwk = createPrivateKey(pem).export({ format: "jwk" }) as Record<string, string>;
  const needles: string[] = [];
  for (const part of ["d", "p", "q"]) {
    const v = jwk[part];
    if (!v) continue;
    const bytes = Buffer.from(v, "base64url");
    needles.push(v.slice(0, 24), bytes.toString("hex").slice(0, 32));
    for (let k = 0; k < 3; k++) {
      const b64 = bytes.subarray(k).toString("base64");
      needles.push(b64.slice(4, 28));
    }
  }
  const first = pem.split(/\r?\n/).find((l) => l && !l.startsWith("-----"));
  if (first) needles.push(first);
  return needles;
}

/** The first needle found in `text`, if any. */
export function leak(text: string, needles: readonly string[]): string | undefined {
  return needles.find((n) => text.includes(n));
}
