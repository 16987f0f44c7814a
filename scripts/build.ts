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
 * them start nearly as fast as those that do not; `--no-snapshot` (or a
 * failed snapshot build) uses a plain V8 code cache (`useCodeCache`) instead.
 *
 * `--entry` lets the benchmark build a hello-world the same way.
 *
 * @module
 */

import { execFileSync, spawnSync } from "node:child_process";
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
  const p = r.stdout.trim();
  return r.status === 0 && p ? p : undefined;
}

/** The deno executable running this script (the repository's pinned one). */
function denoBin(): string {
  return process.execPath;
}

/** Runs a build step quietly; its output is shown only when it fails. */
function run(cmd: string, args: string[], cwd: string): void {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", timeout: 300_000 });
  if (r.status !== 0) {
    process.stderr.write(r.stdout + r.stderr);
    throw new Error(`${path.basename(cmd)} ${args.slice(0, 1).join(" ")} failed (${r.status})`);
  }
}

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
function buildDeno(entry: string, out: string): string | undefined {
  const denort = process.env.DENORT_BIN;
  if (denort && !fs.existsSync(denort)) return `DENORT_BIN=${denort} does not exist`;
  const tmp = out + ".deno-tmp";
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
    "--output",
    tmp,
    entry,
  ], { cwd: ROOT, encoding: "utf8", timeout: 300_000, env: { ...process.env, NO_COLOR: "1" } });
  if (r.status !== 0) {
    fs.rmSync(tmp, { force: true });
    const lines = (r.stderr || String(r.error)).split("\n").map((l) => l.trim()).filter((l) =>
      l && !/^\d+: <unknown>$|^Stack backtrace:$/.test(l)
    );
    const why = [...new Set([lines[0], lines.at(-1)])].join(" ... ");
    return `deno compile failed: ${why}`;
  }
  // A DENORT_BIN that is not a real denort (e.g. the full deno CLI) yields a
  // binary that ignores its payload: catch that before calling it a success.
  const bad = smokeTest(tmp, entry);
  if (bad) {
    fs.rmSync(tmp, { force: true });
    return `deno compile output does not run joinkit (${bad})`;
  }
  fs.renameSync(tmp, out);
  return undefined;
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

/** Bundles `entry` into one minified CommonJS script for Node 20. */
export async function bundle(
  entry: string,
  outfile: string,
  warm: string[] | undefined,
): Promise<string[]> {
  const esbuild = await loadEsbuild();
  const missing: string[] = [];
  // With a V8 startup snapshot, the script runs at build time: it initialises
  // the heavy modules (`warm`) there, and the entry itself runs at start-up.
  const snapshotEntry = `import v8 from "node:v8";
Promise.all([${warm?.map((w) => `import(${JSON.stringify(w)})`).join(", ")}]).then(() => {
  v8.startupSnapshot.setDeserializeMainFunction(() => void import(${JSON.stringify("./" + entry)}));
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
    plugins: [missingStubPlugin(missing)],
  });
  for (const w of result.warnings) log(`esbuild warning: ${w.text}`);
  return missing;
}

/** Route 2: Node single executable application. Returns whether it has a snapshot. */
async function buildSea(entry: string, out: string, snapshot: boolean): Promise<boolean> {
  if (snapshot) {
    try {
      await buildSeaOnce(entry, out, true);
      return true;
    } catch (e) {
      log(`V8 snapshot build failed (${e instanceof Error ? e.message : e}); without snapshot`);
    }
  }
  await buildSeaOnce(entry, out, false);
  return false;
}

async function buildSeaOnce(entry: string, out: string, snapshot: boolean): Promise<void> {
  const node = which("node");
  if (!node) throw new Error("node not found on PATH (needed for the SEA route)");
  const nodeExe = execFileSync(node, ["-p", "process.execPath"], { encoding: "utf8" }).trim();
  const nodeVersion = execFileSync(nodeExe, ["--version"], { encoding: "utf8" }).trim();
  const work = workDir(out);
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(work, { recursive: true });
  const script = path.join(work, "bundle.cjs");
  // The heavy modules, initialised into the snapshot: for joinkit, X.509 and
  // YAML; a hello-world gets the same snapshot machinery and nothing to warm.
  const warm = !snapshot ? undefined : entry === "main.ts" ? warmModules() : [];
  const missing = await bundle(entry, script, warm);
  if (missing.length) {
    log(`${missing.length} command file(s) missing, built as stubs: ${missing.join(", ")}`);
  }
  if (warm?.length) log(`snapshot pre-initialises ${warm.join(", ")}`);
  const blob = path.join(work, "sea-prep.blob");
  const config = {
    main: script,
    output: blob,
    disableExperimentalSEAWarning: true,
    useSnapshot: snapshot,
    // A snapshot holds compiled code already; node refuses both together.
    useCodeCache: !snapshot,
  };
  fs.writeFileSync(path.join(work, "sea-config.json"), JSON.stringify(config, null, 2) + "\n");
  run(nodeExe, ["--experimental-sea-config", "sea-config.json"], work);
  const tmp = out + ".sea-tmp";
  fs.copyFileSync(nodeExe, tmp);
  fs.chmodSync(tmp, 0o755);
  // Distribution node binaries may carry debug info (~13 MB here): drop it when we can.
  const strip = which("strip");
  if (strip && spawnSync(strip, ["--strip-all", tmp]).status !== 0) {
    fs.copyFileSync(nodeExe, tmp);
  }
  const postject = path.join(ROOT, "node_modules/postject/dist/cli.js");
  run(nodeExe, [postject, tmp, "NODE_SEA_BLOB", blob, "--sentinel-fuse", SEA_FUSE], work);
  const bad = smokeTest(tmp, entry);
  if (bad) {
    fs.rmSync(tmp, { force: true });
    throw new Error(`SEA binary does not run: ${bad}`);
  }
  fs.renameSync(tmp, out);
  log(
    `node ${nodeVersion} SEA${snapshot ? " with V8 startup snapshot" : " with code cache"}, ` +
      `bundle ${fs.statSync(script).size} bytes`,
  );
}

/**
 * What the snapshot initialises at build time: lib/pki/x509.ts (which loads
 * reflect-metadata before @peculiar/x509, so it comes first), lib/k8s/manifest.ts
 * (yaml), then every other npm package lib/ and commands/ import (ASN.1
 * schemas...). Only third-party code: joinkit's own modules run at start-up, so
 * nothing of a run (time, randomness, environment) is frozen into the binary.
 */
function warmModules(): string[] {
  const warm = ["./lib/pki/x509.ts", "./lib/k8s/manifest.ts"];
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
        if (!spec.startsWith("node:") && spec !== "@peculiar/x509" && spec !== "reflect-metadata") {
          pkgs.add(spec);
        }
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
  const t0 = performance.now();
  let took = "";
  let snapshot = false;
  if (route !== "sea") {
    const why = buildDeno(entry, out);
    if (!why) took = "deno compile";
    else if (route === "deno") {
      log(why);
      return 1;
    } else log(`${why}; falling back to Node SEA`);
  }
  if (!took) {
    snapshot = await buildSea(entry, out, !values["no-snapshot"]);
    took = "node SEA (esbuild + postject)";
  }
  const size = fs.statSync(out).size;
  // `sha256sum -c joinkit.sha256` next to the binary checks it on the target host.
  const { createHash } = await import("node:crypto");
  const digest = createHash("sha256").update(fs.readFileSync(out)).digest("hex");
  fs.writeFileSync(out + ".sha256", `${digest}  ${path.basename(out)}\n`);
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
    log(`error: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 1;
  }
}
