/**
 * Builds `dist/joinkit`, one self-contained executable that runs every joinkit
 * command on a host with no Deno, no Node and no node_modules.
 *
 * Two routes, tried in this order (say which on stderr):
 *
 * 1. `deno compile`, when its runtime can be had: `DENORT_BIN` names a denort
 *    binary, or the Deno runtime can be downloaded (online machines).
 * 2. Node's single executable application (SEA): esbuild bundles main.ts into
 *    one CommonJS script (commands stay lazy: esbuild turns each `import()` of a
 *    bundled file into a deferred module initialiser), `node
 *    --experimental-sea-config` turns it into a blob with a V8 code cache, and
 *    postject injects the blob into a copy of the `node` binary.
 *
 * Usage: deno run -A scripts/build.ts [--route auto|deno|sea] [--out dist/joinkit]
 *        [--entry main.ts] [--no-snapshot]
 *
 * On the SEA route the heavy modules (@peculiar/x509, yaml) are initialised at
 * build time into a V8 startup snapshot (`useSnapshot`), so commands that need
 * them start nearly as fast as those that do not. A snapshot build that fails
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

import { execFileSync, spawnSync } from "node:child_process";
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

/** Checks that a built binary starts and prints the version main.ts would. */
function smokeTest(bin: string, entry: string): string | undefined {
  const r = spawnSync(bin, entry === "main.ts" ? ["--version"] : [], {
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
    define: { "import.meta.url": "undefined" },
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
  const kind = snapshot ? "V8 startup snapshot" : "code cache";
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
      snapshot
        ? `${why}; no binary written (not falling back to a code-cache binary: ` +
          `rerun, or ask for one with --no-snapshot)`
        : `${why}; no binary written`,
    );
  }
}

/** The real SEA steps: the local node, esbuild, postject. */
function seaSteps(entry: string, out: string): SeaSteps {
  let node: { exe: string; version: string; prefix: string[] } | undefined;
  const local = () => {
    if (node) return node;
    const found = which("node");
    if (!found) throw new Error("node not found on PATH (needed for the SEA route)");
    const exe = execFileSync(found, ["-p", "process.execPath"], { encoding: "utf8" }).trim();
    const version = execFileSync(exe, ["--version"], { encoding: "utf8" }).trim();
    return node = { exe, version, prefix: reproduciblePrefix() };
  };
  return {
    make: (tmp, snapshot) => {
      const { exe, prefix } = local();
      return seaBinary(entry, out, tmp, snapshot, exe, prefix);
    },
    check: (tmp) => smokeTest(tmp, entry),
    say: (line) => log(line.startsWith("SEA ") ? `node ${local().version} ${line}` : line),
  };
}

let warmSaid = false;

/**
 * Makes one SEA binary for `out` at `tmp`: bundle, blob (snapshot or code cache),
 * stripped copy of node, blob injected. Its work files go to
 * {@link workDir}. Returns the bundle's size.
 */
async function seaBinary(
  entry: string,
  out: string,
  tmp: string,
  snapshot: boolean,
  nodeExe: string,
  prefix: string[],
): Promise<number> {
  const work = workDir(out);
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(work, { recursive: true });
  const script = path.join(work, "bundle.cjs");
  // The heavy modules, initialised into the snapshot: for joinkit, X.509 and
  // YAML; a hello-world gets the same snapshot machinery and nothing to warm.
  const warm = !snapshot ? undefined : entry === "main.ts" ? warmModules() : [];
  const { missing, lazy } = await bundle(entry, script, warm, path.join(work, LAZY_ASSET));
  if (missing.length) {
    log(`${missing.length} command file(s) missing, built as stubs: ${missing.join(", ")}`);
  }
  if (warm?.length && !warmSaid) log(`snapshot pre-initialises ${warm.join(", ")}`);
  warmSaid = true;
  // Paths relative to the work directory, so the blob does not hold the checkout's path.
  const config = {
    main: "bundle.cjs",
    output: "sea-prep.blob",
    disableExperimentalSEAWarning: true,
    useSnapshot: snapshot,
    // A snapshot holds compiled code already; node refuses both together.
    useCodeCache: !snapshot,
    ...(lazy ? { assets: { [LAZY_ASSET]: LAZY_ASSET } } : {}),
  };
  fs.writeFileSync(path.join(work, "sea-config.json"), JSON.stringify(config, null, 2) + "\n");
  // Same bytes from the same tree: REPRODUCIBLE_NODE_FLAGS, and `prefix` fixes
  // the PID and the addresses (reproduciblePrefix).
  const sea = [nodeExe, ...REPRODUCIBLE_NODE_FLAGS, "--experimental-sea-config"];
  const argv = [...prefix, ...sea, "sea-config.json"];
  run("node --experimental-sea-config", argv[0]!, argv.slice(1), work, "sea-config.log");
  fs.copyFileSync(nodeExe, tmp);
  fs.chmodSync(tmp, 0o755);
  // Distribution node binaries may carry debug info (~13 MB here): drop it when we can.
  const strip = which("strip");
  if (strip && spawnSync(strip, ["--strip-all", tmp]).status !== 0) {
    fs.copyFileSync(nodeExe, tmp);
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
  "./commands/cert_inspect.ts",
  "./commands/cluster_info_sign.ts",
  "./commands/join_command.ts",
  "./commands/token_generate.ts",
  // What ca hash and join-command import once their input is read (the certificate parser).
  "./lib/pki/cert_info.ts",
];

/**
 * What the snapshot initialises at build time: lib/k8s/manifest.ts (yaml),
 * {@link WARM_OWN}, then the other npm packages lib/ and commands/ import
 * statically (js-yaml; not the ASN.1 schemas). Everything else of joinkit's
 * runs at start-up. (@peculiar/x509, which tests alone load, was
 * ~30% of the snapshot's objects: every start-up paid to deserialise it.)
 */
function warmModules(): string[] {
  const warm = ["./lib/k8s/manifest.ts", ...WARM_OWN];
  // A missing warm module would ship a binary without its snapshot: fail instead.
  for (const f of warm) {
    if (!fs.existsSync(path.join(ROOT, f))) throw new Error(`snapshot module ${f} not found`);
  }
  const pkgs = new Set<string>();
  for (const dir of ["lib", "commands"]) {
    const files = fs.readdirSync(path.join(ROOT, dir), { recursive: true }).map(String);
    for (const f of files) {
      if (!f.endsWith(".ts")) continue;
      const src = fs.readFileSync(path.join(ROOT, dir, f), "utf8");
      for (const m of src.matchAll(/^import[^;]*?from\s+"([^".][^"]*)";/gm)) {
        const spec = m[1]!;
        // The ASN.1 schemas only csr sign and csr create write with load when used: in the
        // snapshot they cost every start-up ~3-5 ms and gain csr sign of 3,700 CSRs nothing.
        if (!spec.startsWith("node:") && !spec.startsWith("@peculiar/")) pkgs.add(spec);
      }
    }
  }
  return [...warm, ...[...pkgs].sort()];
}

/** Where the build keeps its intermediate files (and build-info.json) for `out`. */
export function workDir(out: string): string {
  return path.join(ROOT, ".tmp", "build-" + path.basename(out));
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      route: { type: "string", default: process.env.JOINKIT_BUILD_ROUTE ?? "auto" },
      out: { type: "string", default: "dist/joinkit" },
      entry: { type: "string", default: "main.ts" },
      "no-snapshot": { type: "boolean", default: false },
    },
  });
  const route = values.route!;
  if (!["auto", "deno", "sea"].includes(route)) {
    log(`--route must be auto, deno or sea, not ${JSON.stringify(route)}`);
    return 2;
  }
  const out = path.resolve(ROOT, values.out!);
  const entry = values.entry!;
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const stale = removeStale(out);
  if (stale.length) log(`removed what an interrupted build left: ${stale.join(", ")}`);
  const t0 = performance.now();
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
  const size = fs.statSync(out).size;
  fs.mkdirSync(workDir(out), { recursive: true });
  fs.writeFileSync(
    path.join(workDir(out), "build-info.json"),
    JSON.stringify({ route: took.startsWith("deno") ? "deno" : "sea", snapshot, size }) + "\n",
  );
  const secs = ((performance.now() - t0) / 1000).toFixed(1);
  log(
    `route: ${took}; wrote ${path.relative(ROOT, out)} (${size} bytes, ${
      (size / 1048576).toFixed(1)
    } MiB, sha256 ${digest.slice(0, 16)}…) and ${path.basename(out)}.sha256 in ${secs} s`,
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
