/**
 * joinkit's benchmark: start-up of `deno run` and of the built binary against
 * a hello-world run the same way, throughput against openssl, and fleet
 * operations against the Go anchor (bench/anchor: an in-process loop over Go's
 * crypto/x509, what kube-controller-manager and kube-apiserver run). Builds what
 * it needs (dist/joinkit when missing or older than the sources, a hello-world
 * binary, and the Go anchor into .tmp/bench/ when Go is installed), generates
 * its inputs in a temporary directory, times every run with performance.now()
 * and GNU time (user+sys CPU, peak RSS) and prints ONE Markdown table, also
 * written to bench/RESULTS.md with the date, `nproc` and the load average.
 *
 * Usage: deno run -A bench/bench.ts [--runs N] [--loop-runs N] [--n 1000]
 *        [--fleet 1000,10000] [--tokens 100000] [--mem 100000] [--no-write]
 * (smaller numbers are for trying the bench out; RESULTS.md is for the defaults)
 *
 * Cases whose command does not exist yet print "n/a (command missing)".
 *
 * @module
 */

import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { nodeRuntime } from "../scripts/build.ts";

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const DENO = process.execPath;
const BIN = path.join(ROOT, "dist", "joinkit");
const HELLO_BIN = path.join(ROOT, "dist", "bench", "hello");
/**
 * The `node` of `node hello.js`: the runtime inside the binary (Node 24 from the npm registry,
 * pinned by scripts/node-runtime/package-lock.json), so the start-up ratio compares like with like;
 * the host's `node` may be another major version whose start costs differ.
 */
const NODE = (() => {
  try {
    return nodeRuntime("x64", () => {}).exe;
  } catch {
    return "node";
  }
})();

const { values: opts } = parseArgs({
  args: process.argv.slice(2),
  options: {
    runs: { type: "string", default: "15" },
    "loop-runs": { type: "string", default: "5" },
    "no-write": { type: "boolean", default: false },
    n: { type: "string", default: "1000" },
    fleet: { type: "string", default: "1000,10000" },
    tokens: { type: "string", default: "100000" },
    mem: { type: "string", default: "100000" },
  },
});
/** CSRs and certificates per throughput case (tokens: 10×). */
const N_CERTS = Math.max(1, Number(opts.n));
const N_TOKENS = 10 * N_CERTS;
const RUNS = Math.max(3, Number(opts.runs));
const LOOP_RUNS = Math.max(1, Number(opts["loop-runs"]));
/** Objects per Go-anchor case: the slope is taken between the first and the last. */
const FLEET = opts.fleet.split(",").map(Number).filter((n) => n > 0).sort((a, b) => a - b);
/** Tokens for the `token create`/`token list` budget rows. */
const BIG_TOKENS = Math.max(1, Number(opts.tokens));
/** Objects per bounded-memory row (0: no such rows); each runs once. */
const MEM_OBJECTS = Math.max(0, Number(opts.mem));
/** Issue 13: 100,000 objects (hundreds of MB) in under 512 MiB. */
const MEM_BUDGET_MIB = 512;

function note(line: string): void {
  process.stderr.write(`bench: ${line}\n`);
}

// ---------------------------------------------------------------- commands

/** The command file main.ts loads for each command name. */
function commandFile(name: string): string {
  return path.join(ROOT, "commands", name.replaceAll(" ", "_").replaceAll("-", "_") + ".ts");
}

function haveCommand(name: string): boolean {
  return fs.existsSync(commandFile(name));
}

// ------------------------------------------------------------------ timing

type Argv = string[];

interface Run {
  argv: Argv;
  cwd?: string;
  stdin?: string;
  /** Multiplies the measured time (a loop timed over a sample of the files). */
  scale?: number;
  /** Environment variables removed for this run. */
  unset?: string[];
}

/**
 * GNU time, when present, adds each run's CPU time (user + sys, children
 * included) and its peak RSS (%M: the largest resident set of the process or of
 * any one child, in KiB).
 */
const GNU_TIME = fs.existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;
const CPU_FILE = path.join(os.tmpdir(), `joinkit-bench-cpu-${process.pid}`);

/** One timed run: wall and (with GNU time) CPU milliseconds and peak RSS in KiB. */
interface Timing {
  wall: number;
  cpu: number | undefined;
  rss: number | undefined;
}

/** Runs once and times it, or throws with the exit code and stderr. */
function timeOnce(run: Run): Timing {
  const stdin = run.stdin ? fs.openSync(run.stdin, "r") : "ignore";
  const devnull = fs.openSync("/dev/null", "w");
  // `env -u`: a spawn's `env` under Deno adds to the parent's environment, it cannot remove.
  const unset = (run.unset ?? []).flatMap((n) => ["-u", n]);
  const timed = GNU_TIME ? [GNU_TIME, "-f", "%U %S %M", "-o", CPU_FILE, ...run.argv] : run.argv;
  const argv = unset.length ? ["env", ...unset, ...timed] : timed;
  try {
    const t0 = performance.now();
    const r = spawnSync(argv[0]!, argv.slice(1), {
      cwd: run.cwd ?? ROOT,
      stdio: [stdin, devnull, "pipe"],
      env: { ...process.env, NO_COLOR: "1" },
      maxBuffer: 64 << 20,
    });
    const wall = (performance.now() - t0) * (run.scale ?? 1);
    if (r.status !== 0) {
      const err = String(r.stderr ?? r.error ?? "").trim().split("\n")[0] ?? "";
      throw new Error(`exit ${r.status}: ${err.slice(0, 120)}`);
    }
    let cpu: number | undefined;
    let rss: number | undefined;
    if (GNU_TIME) {
      const [u, s, m] = fs.readFileSync(CPU_FILE, "utf8").trim().split(/\s+/).slice(-3)
        .map(Number);
      cpu = ((u ?? NaN) + (s ?? NaN)) * 1000 * (run.scale ?? 1);
      rss = m;
    }
    return { wall, cpu, rss };
  } finally {
    if (typeof stdin === "number") fs.closeSync(stdin);
    fs.closeSync(devnull);
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Medians of several runs (peak RSS: the largest of them). */
interface Medians {
  wall: number;
  cpu: number | undefined;
  rss: number | undefined;
}

function medians(ts: Timing[]): Medians {
  const cpus = ts.map((t) => t.cpu).filter((c): c is number => c !== undefined && !isNaN(c));
  const rsss = ts.map((t) => t.rss).filter((c): c is number => c !== undefined && !isNaN(c));
  return {
    wall: median(ts.map((t) => t.wall)),
    cpu: cpus.length === ts.length ? median(cpus) : undefined,
    rss: rsss.length === ts.length ? Math.max(...rsss) : undefined,
  };
}

/**
 * Times a and b interleaved, after one warm-up of a (and of b when it runs
 * more than once). b runs `bRuns` times (default `runs`).
 */
function timePair(
  a: Run,
  b: Run | undefined,
  runs: number,
  bRuns = runs,
): [Medians, Medians | undefined] {
  timeOnce(a);
  if (b && bRuns > 1) timeOnce(b);
  const ta: Timing[] = [];
  const tb: Timing[] = [];
  for (let i = 0; i < Math.max(runs, bRuns); i++) {
    if (i < runs) ta.push(timeOnce(a));
    if (b && i < bRuns) tb.push(timeOnce(b));
  }
  return [medians(ta), b ? medians(tb) : undefined];
}

// ------------------------------------------------------------------ inputs

function sh(script: string, cwd: string): void {
  execFileSync("sh", ["-c", script], { cwd, stdio: ["ignore", "ignore", "inherit"] });
}

/** ECDSA P-256 CA, 1,000 kubelet-client CSRs and 1,000 certificates it issued. */
async function makeInputs(dir: string): Promise<void> {
  const t0 = performance.now();
  sh(
    "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key " +
      "-out ca.crt -subj /CN=kubernetes -days 3650 -addext basicConstraints=critical,CA:TRUE " +
      "-addext keyUsage=critical,digitalSignature,keyCertSign 2>/dev/null",
    dir,
  );
  // The CSRs and certificates are made in-process (openssl would need 2,000
  // process spawns); checked with openssl below.
  const { x509 } = await import("../tests/_x509.ts");
  const subtle = globalThis.crypto.subtle;
  const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
  const pem = fs.readFileSync(path.join(dir, "ca.key"), "utf8");
  const der = Uint8Array.from(
    atob(pem.replace(/-----[^-]+-----/g, "").replace(/\s+/g, "")),
    (c) => c.charCodeAt(0),
  );
  const caKey = await subtle.importKey("pkcs8", der, alg, false, ["sign"]);
  const caCert = new x509.X509Certificate(fs.readFileSync(path.join(dir, "ca.crt"), "utf8"));
  fs.mkdirSync(path.join(dir, "csrs"));
  fs.mkdirSync(path.join(dir, "certs"));
  const now = Date.now();
  for (let i = 0; i < N_CERTS; i++) {
    const keys = await subtle.generateKey(alg, true, ["sign", "verify"]);
    const name = `CN=system:node:node-${i},O=system:nodes`;
    const csr = await x509.Pkcs10CertificateRequestGenerator.create({
      name,
      keys,
      signingAlgorithm: alg,
    });
    fs.writeFileSync(path.join(dir, "csrs", `node-${i}.csr`), csr.toString("pem") + "\n");
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: (0x1000 + i).toString(16).padStart(8, "0"),
      issuer: caCert.subjectName,
      subject: name,
      notBefore: new Date(now - 3600_000),
      notAfter: new Date(now + 365 * 86400_000),
      publicKey: keys.publicKey,
      signingKey: caKey,
      signingAlgorithm: alg,
      extensions: [
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
        new x509.BasicConstraintsExtension(false, undefined, true),
      ],
    });
    fs.writeFileSync(path.join(dir, "certs", `node-${i}.crt`), cert.toString("pem") + "\n");
  }
  execFileSync("openssl", ["verify", "-CAfile", "ca.crt", "certs/node-0.crt"], {
    cwd: dir,
    stdio: "ignore",
  });
  execFileSync("openssl", ["req", "-verify", "-noout", "-in", "csrs/node-0.csr"], {
    cwd: dir,
    stdio: "ignore",
  });
  note(`inputs: CA + ${N_CERTS} CSRs + ${N_CERTS} certs in ${ms(performance.now() - t0)}`);
}

// ------------------------------------------------------------------ builds

function newestSource(): number {
  let newest = 0;
  const walk = (p: string) => {
    for (const e of fs.readdirSync(p, { withFileTypes: true })) {
      const f = path.join(p, e.name);
      if (e.isDirectory()) walk(f);
      else if (f.endsWith(".ts")) newest = Math.max(newest, fs.statSync(f).mtimeMs);
    }
  };
  walk(path.join(ROOT, "commands"));
  walk(path.join(ROOT, "lib"));
  newest = Math.max(newest, fs.statSync(path.join(ROOT, "main.ts")).mtimeMs);
  return newest;
}

function build(args: string[]): void {
  const r = spawnSync(DENO, ["run", "-A", "scripts/build.ts", ...args], {
    cwd: ROOT,
    encoding: "utf8",
  });
  const last = r.stderr.trim().split("\n").at(-1) ?? "";
  if (r.status !== 0) throw new Error(`build ${args.join(" ")} failed: ${r.stderr}`);
  note(last.replace(/^build: /, "built: "));
}

/** How dist/joinkit was built (written by scripts/build.ts). */
interface BuildInfo {
  route: "deno" | "sea";
  codeCache: boolean;
  size: number;
}

function buildInfo(name: string): BuildInfo | undefined {
  try {
    return JSON.parse(
      fs.readFileSync(path.join(ROOT, ".tmp", `build-${name}`, "build-info.json"), "utf8"),
    );
  } catch {
    return undefined;
  }
}

/** Builds dist/joinkit when missing or stale, and a hello-world built the same way. */
function ensureBinaries(): BuildInfo {
  let info = buildInfo("joinkit");
  const stale = !fs.existsSync(BIN) || fs.statSync(BIN).mtimeMs < newestSource() || !info;
  if (stale) {
    build([]);
    info = buildInfo("joinkit")!;
  }
  const hello = buildInfo("hello");
  if (
    !fs.existsSync(HELLO_BIN) || fs.statSync(HELLO_BIN).mtimeMs < fs.statSync(BIN).mtimeMs ||
    hello?.route !== info!.route || hello?.codeCache !== info!.codeCache
  ) {
    build([
      "--route",
      info!.route,
      ...(info!.codeCache ? [] : ["--no-code-cache"]),
      "--entry",
      "bench/hello.ts",
      "--out",
      "dist/bench/hello",
    ]);
  }
  return info!;
}

// ------------------------------------------------------------------- cases

interface Row {
  name: string;
  wall: string;
  cpu: string;
  rss: string;
  baseline: string;
  baseWall: string;
  baseCpu: string;
  ratio: string;
  cpuRatio: string;
  target: string;
  met: string;
}

const rows: Row[] = [];

const EMPTY = {
  wall: "",
  cpu: "",
  rss: "",
  baseWall: "",
  baseCpu: "",
  ratio: "",
  cpuRatio: "",
};

function ms(x: number): string {
  return x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : `${Math.round(x)} ms`;
}

function maybeMs(x: number | undefined): string {
  return x === undefined ? "" : ms(x);
}

function mib(kib: number | undefined): string {
  return kib === undefined ? "" : `${Math.round(kib / 1024)} MiB`;
}

/** Which median a target judges: wall time, or CPU time (user+sys) when GNU time gave it. */
type Judge = "wall" | "cpu";

function judged(m: Medians, judge: Judge): number {
  return judge === "cpu" && m.cpu !== undefined ? m.cpu : m.wall;
}

function missingRow(name: string, baseline: string, target: string, missing: string[]): void {
  rows.push({
    ...EMPTY,
    name,
    wall: "n/a (command missing)",
    baseline,
    target,
    met: `n/a (${missing.join(", ")} missing)`,
  });
}

function failRow(name: string, baseline: string, target: string, e: unknown): void {
  const why = e instanceof Error ? e.message : String(e);
  note(`${name}: ${why}`);
  // Exit 1 is an InputError: joinkit refused the input (e.g. a size cap), say so with its message.
  const refused = why.startsWith("exit 1:");
  rows.push({
    ...EMPTY,
    name,
    wall: refused
      ? `refused: ${why.slice(8, 160).replaceAll("|", "\\|")}`
      : `failed: ${why.slice(0, 60).replaceAll("|", "\\|")}`,
    baseline,
    target,
    met: "no",
  });
}

/**
 * A case timed against a baseline; target is the highest ratio allowed of the
 * `judge` medians. Returns the medians (joinkit, baseline) when both ran.
 */
function ratioCase(
  name: string,
  needs: string[],
  run: () => Run,
  baselineName: string,
  baseline: Run,
  maxRatio: number,
  target: string,
  runs: number,
  baseRuns = runs,
  judge: Judge = "wall",
): [Medians, Medians] | undefined {
  const missing = needs.filter((n) => !haveCommand(n));
  if (missing.length) {
    missingRow(name, baselineName, target, missing);
    return undefined;
  }
  try {
    const [a, b] = timePair(run(), baseline, runs, baseRuns);
    const ratio = judged(a, judge) / judged(b!, judge);
    rows.push({
      name,
      wall: ms(a.wall),
      cpu: maybeMs(a.cpu),
      rss: mib(a.rss),
      baseline: baselineName,
      baseWall: ms(b!.wall),
      baseCpu: maybeMs(b!.cpu),
      ratio: (a.wall / b!.wall).toFixed(2) + "×",
      cpuRatio: a.cpu !== undefined && b!.cpu ? (a.cpu / b!.cpu).toFixed(2) + "×" : "",
      target,
      met: maxRatio === Infinity ? "—" : ratio <= maxRatio ? "yes" : "**no**",
    });
    return [a, b!];
  } catch (e) {
    failRow(name, baselineName, target, e);
    return undefined;
  }
}

/** A case with an absolute time budget on its `judge` median. */
function budgetCase(
  name: string,
  needs: string[],
  run: () => Run,
  budgetMs: number,
  judge: Judge = "wall",
): void {
  const target = `${judge === "cpu" ? "CPU " : ""}< ${ms(budgetMs)}`;
  const missing = needs.filter((n) => !haveCommand(n));
  if (missing.length) return missingRow(name, "—", target, missing);
  try {
    const [a] = timePair(run(), undefined, LOOP_RUNS);
    rows.push({
      ...EMPTY,
      name,
      wall: ms(a.wall),
      cpu: maybeMs(a.cpu),
      rss: mib(a.rss),
      baseline: "—",
      target,
      met: judged(a, judge) < budgetMs ? "yes" : "**no**",
    });
  } catch (e) {
    failRow(name, "—", target, e);
  }
}

// --------------------------------------------------------------- Go anchor

/** Go's toolchain: the oracle's Go 1.23 first, then `go` on PATH. */
function findGo(): string | undefined {
  for (const go of ["/usr/lib/go-1.23/bin/go", "go"]) {
    const r = spawnSync(go, ["version"], { encoding: "utf8" });
    if (r.status === 0) return go;
  }
  return undefined;
}

/**
 * Builds bench/anchor (a copy of ../shared/anchors/go-x509, standard library
 * only, so no network) into .tmp/bench/go-x509. Returns the binary and Go's
 * version, or why it could not.
 */
function buildAnchor(): { bin: string; version: string } | { skipped: string } {
  const go = findGo();
  if (!go) {
    return {
      skipped: "Go-anchor rows skipped: no Go toolchain " +
        "(install one, e.g. `apt-get install -y golang-go`, and re-run)",
    };
  }
  const bin = path.join(ROOT, ".tmp", "bench", "go-x509");
  fs.mkdirSync(path.dirname(bin), { recursive: true });
  const r = spawnSync(go, ["build", "-o", bin, "."], {
    cwd: path.join(ROOT, "bench", "anchor"),
    encoding: "utf8",
    env: { ...process.env, GOFLAGS: "-mod=mod", GOPROXY: "off", GOTOOLCHAIN: "local" },
  });
  if (r.status !== 0) {
    return { skipped: `Go-anchor rows skipped: ${go} build failed: ${r.stderr.trim()}` };
  }
  const version = execFileSync(go, ["version"], { encoding: "utf8" }).trim()
    .replace(/^go version /, "");
  note(`built: ${path.relative(ROOT, bin)} with ${version}`);
  return { bin, version };
}

/**
 * Same inputs for both sides: the anchor generates an ECDSA P-256 CA and N
 * kubelet-client CSRs (a kubectl-shaped List and PEM), signs them into
 * certs.pem and writes them again one a file into certs/: the files both
 * sides verify and inspect.
 */
function makeFleet(anchor: string, n: number, dir: string): void {
  const t0 = performance.now();
  execFileSync(anchor, ["gen", String(n), dir], { stdio: ["ignore", "ignore", "inherit"] });
  execFileSync(anchor, ["sign", dir], { stdio: ["ignore", "ignore", "inherit"] });
  // The same certificates one file each (DIR/certs/NNNNNN.crt), as a fleet's arrive.
  execFileSync(anchor, ["split", dir], { stdio: ["ignore", "ignore", "inherit"] });
  note(`fleet: CA + ${n} CSRs + ${n} certs (Go anchor) in ${ms(performance.now() - t0)}`);
}

/**
 * joinkit's binary against the Go anchor, whole processes on the same inputs,
 * judged on CPU time: each case at every fleet size (the largest is the
 * target), then the CPU cost of each further object between the smallest and
 * the largest (start-up cancels out of the slope).
 */
function goCases(anchor: string, work: string): void {
  const dirs = new Map<number, string>();
  for (const n of FLEET) {
    const dir = path.join(work, `fleet-${n}`);
    makeFleet(anchor, n, dir);
    dirs.set(n, dir);
  }
  const f = (dir: string, name: string) => path.join(dir, name);
  // [command, what, joinkit's arguments, the anchor's arguments, judged?]. Both sides read the
  // same files: `cert verify` and `cert inspect -o json` a directory of one certificate a file
  // (each verified as a leaf, as Go verifies each), the reference row one PEM file of all.
  const cases: [string, string, (d: string) => string[], (d: string) => string[], boolean][] = [
    [
      "csr sign",
      "CSRs (a List, --approve -o yaml)",
      (d) => [
        "csr",
        "sign",
        f(d, "csrs.yaml"),
        "--ca",
        f(d, "ca.crt"),
        "--ca-key",
        f(d, "ca.key"),
        "--approve",
        "-o",
        "yaml",
      ],
      (d) => ["sign", d],
      true,
    ],
    [
      "cert verify",
      "certs (a directory, a file each)",
      (d) => [
        "cert",
        "verify",
        f(d, "certs"),
        "--ca",
        f(d, "ca.crt"),
      ],
      (d) => ["verify-dir", f(d, "ca.crt"), f(d, "certs")],
      true,
    ],
    [
      "cert inspect",
      "certs (a directory, a file each, -o json)",
      (d) => [
        "cert",
        "inspect",
        f(d, "certs"),
        "-o",
        "json",
      ],
      (d) => ["inspect-dir", f(d, "certs")],
      true,
    ],
    [
      "cert inspect",
      "certs (one PEM file, text)",
      (d) => [
        "cert",
        "inspect",
        f(d, "certs.pem"),
      ],
      (d) => ["inspect", d],
      false,
    ],
  ];
  const largest = FLEET.at(-1)!;
  // csr approve on the same List (issue 12: "a few seconds" for 10,000 CSRs): every CSR is a
  // bootstrap-token client CSR the built-in approver's rules approve, so the run exits 0.
  budgetCase(
    `binary: csr approve, ${largest} CSRs (a List, -o yaml)`,
    ["csr approve"],
    () => ({ argv: [BIN, "csr", "approve", f(dirs.get(largest)!, "csrs.yaml")], cwd: work }),
    3000,
    "cpu",
  );
  for (const [command, what, args, goArgs, judgedCase] of cases) {
    const got = new Map<number, [Medians, Medians]>();
    const sub = goArgs("DIR")[0]!;
    for (const n of FLEET) {
      const dir = dirs.get(n)!;
      const target = judgedCase && n === largest;
      const r = ratioCase(
        `binary: ${command}, ${n} ${what}`,
        [command],
        () => ({ argv: [BIN, ...args(dir)], cwd: work }),
        `Go anchor: go-x509 ${sub}`,
        { argv: [anchor, ...goArgs(dir)], cwd: work },
        target ? 2 : Infinity,
        target ? "CPU ≤ 2×" : "none (reference)",
        LOOP_RUNS,
        LOOP_RUNS,
        "cpu",
      );
      if (r) got.set(n, r);
    }
    // Reference: the largest without NODE_EXTRA_CA_CERTS (Node, and so the binary, parses that
    // bundle at every start; the Go anchor does not).
    if (process.env.NODE_EXTRA_CA_CERTS) {
      const dir = dirs.get(largest)!;
      const unset = ["NODE_EXTRA_CA_CERTS"];
      ratioCase(
        `binary: ${command}, ${largest} ${what}, without NODE_EXTRA_CA_CERTS`,
        [command],
        () => ({ argv: [BIN, ...args(dir)], cwd: work, unset }),
        `Go anchor: go-x509 ${sub}`,
        { argv: [anchor, ...goArgs(dir)], cwd: work, unset },
        Infinity,
        "none (reference)",
        LOOP_RUNS,
        LOOP_RUNS,
        "cpu",
      );
    }
    const small = FLEET[0]!;
    const lo = got.get(small);
    const hi = got.get(largest);
    if (small === largest || !lo || !hi) continue;
    // Microseconds of CPU (wall without GNU time) per object between the two sizes.
    const slope = (a: Medians, b: Medians) =>
      (judged(b, "cpu") - judged(a, "cpu")) * 1000 / (largest - small);
    const jk = slope(lo[0], hi[0]);
    const go = slope(lo[1], hi[1]);
    rows.push({
      ...EMPTY,
      name: `binary: ${command}, CPU per further object (${small}→${largest}; ${what})`,
      cpu: `${jk.toFixed(0)} µs`,
      baseline: "Go anchor, same slope",
      baseCpu: `${go.toFixed(0)} µs`,
      cpuRatio: go > 0 ? `${(jk / go).toFixed(2)}×` : "",
      target: judgedCase ? "≤ 2×" : "none (reference)",
      met: !judgedCase ? "—" : go > 0 && jk / go <= 2 ? "yes" : "**no**",
    });
  }
}

/**
 * A bounded-memory case: one run (after no warm-up: these take minutes),
 * judged on its peak RSS.
 */
function memCase(name: string, needs: string[], run: () => Run): void {
  const target = `peak RSS < ${MEM_BUDGET_MIB} MiB`;
  const missing = needs.filter((n) => !haveCommand(n));
  if (missing.length) return missingRow(name, "—", target, missing);
  try {
    const a = timeOnce(run());
    rows.push({
      ...EMPTY,
      name,
      wall: ms(a.wall),
      cpu: maybeMs(a.cpu),
      rss: mib(a.rss),
      baseline: "—",
      target,
      met: a.rss === undefined
        ? "n/a (no GNU time)"
        : a.rss < MEM_BUDGET_MIB * 1024
        ? "yes"
        : "**no**",
    });
  } catch (e) {
    failRow(name, "—", target, e);
  }
}

/**
 * A token-create `---` stream rewritten as one kubectl-shaped YAML List
 * (`items:` at the left margin, a `- ` line per item), as `kubectl get -o yaml` prints it.
 */
function yamlListOf(stream: string): string {
  const docs = stream.split(/^---\n/m).filter((d) => d.trim() !== "");
  const items = docs.map((d) =>
    d.trimEnd().split("\n").map((l, i) => (i === 0 ? "- " : "  ") + l).join("\n")
  );
  return `apiVersion: v1\nitems:\n${
    items.join("\n")
  }\nkind: List\nmetadata:\n  resourceVersion: ""\n`;
}

/**
 * Issue 13's bounded memory: MEM_OBJECTS CSRs, certificates and token Secrets
 * through the bulk commands, each run once, judged on peak RSS. The Go anchor
 * makes the CSRs and certificates, also split one per file (every input file
 * is capped at 16 MiB, a directory of 100,000 files is not).
 */
function memCases(anchor: string | undefined, work: string): void {
  const n = MEM_OBJECTS;
  if (n === 0) return;
  const jk = (args: string[]): Argv => [BIN, ...args];
  if (anchor) {
    const dir = path.join(work, `mem-${n}`);
    makeFleet(anchor, n, dir);
    const f = (name: string) => path.join(dir, name);
    memCase(`binary: cert inspect, ${n} certs (one PEM file, -o json)`, ["cert inspect"], () => ({
      argv: jk(["cert", "inspect", f("certs.pem"), "-o", "json"]),
      cwd: work,
    }));
    // makeFleet split the certificates one a file (DIR/certs/NNNNNN.crt).
    const certs = f("certs");
    fs.rmSync(f("certs.pem"));
    memCase(`binary: csr sign, ${n} CSRs (a List, --approve -o yaml)`, ["csr sign"], () => ({
      argv: jk([
        "csr",
        "sign",
        f("csrs.yaml"),
        "--ca",
        f("ca.crt"),
        "--ca-key",
        f("ca.key"),
        "--approve",
        "-o",
        "yaml",
      ]),
      cwd: work,
    }));
    memCase(`binary: csr sign, ${n} CSRs (one PEM file)`, ["csr sign"], () => ({
      argv: jk(["csr", "sign", f("csrs.pem"), "--ca", f("ca.crt"), "--ca-key", f("ca.key")]),
      cwd: work,
    }));
    memCase(`binary: csr approve, ${n} CSRs (a List)`, ["csr approve"], () => ({
      argv: jk(["csr", "approve", f("csrs.yaml")]),
      cwd: work,
    }));
    memCase(`binary: csr inspect, ${n} CSRs (a List, -o json)`, ["csr inspect"], () => ({
      argv: jk(["csr", "inspect", f("csrs.yaml"), "-o", "json"]),
      cwd: work,
    }));
    memCase(`binary: cert verify, ${n} certs (a directory)`, ["cert verify"], () => ({
      argv: jk(["cert", "verify", certs, "--ca", f("ca.crt")]),
      cwd: work,
    }));
    memCase(`binary: cert inspect, ${n} certs (a directory, -o json)`, ["cert inspect"], () => ({
      argv: jk(["cert", "inspect", certs, "-o", "json"]),
      cwd: work,
    }));
    fs.rmSync(dir, { recursive: true, force: true });
  } else note("bounded-memory CSR and certificate rows skipped: they need the Go anchor's fleet");
  const stream = path.join(work, `mem-secrets-${n}.yaml`);
  const list = path.join(work, `mem-secrets-${n}-list.yaml`);
  const json = path.join(work, `mem-secrets-${n}.json`);
  memCase(
    `binary: token list, ${n} token Secrets (one YAML List)`,
    ["token list", "token create"],
    () => {
      const out = fs.openSync(stream, "w");
      execFileSync(BIN, ["token", "create", "--count", String(n)], {
        cwd: work,
        stdio: ["ignore", out, "inherit"],
      });
      fs.closeSync(out);
      fs.writeFileSync(list, yamlListOf(fs.readFileSync(stream, "utf8")));
      return { argv: jk(["token", "list", list]), cwd: work };
    },
  );
  memCase(
    `binary: token list, ${n} token Secrets (one JSON List)`,
    ["token list", "token create"],
    () => {
      const out = fs.openSync(json, "w");
      execFileSync(BIN, ["token", "create", "--count", String(n), "-o", "json"], {
        cwd: work,
        stdio: ["ignore", out, "inherit"],
      });
      fs.closeSync(out);
      return { argv: jk(["token", "list", json]), cwd: work };
    },
  );
  memCase(
    `binary: token check --secrets, ${n} token Secrets (the last one's token)`,
    ["token check", "token create"],
    () => {
      // The stream's last Secret: the authenticator reads every Secret before it looks.
      const text = fs.readFileSync(stream, "utf8");
      const last = (key: string) =>
        atob([...text.matchAll(new RegExp(`^  ${key}: (\\S+)$`, "gm"))].at(-1)![1]!);
      const token = `${last("token-id")}.${last("token-secret")}`;
      return { argv: jk(["token", "check", token, "--secrets", stream]), cwd: work };
    },
  );
  // The same judgement over the JSON List `kubectl get secrets -o json` would print (token
  // create's -o json): its last item's token.
  memCase(
    `binary: token check --secrets, ${n} token Secrets (one JSON List, the last one's token)`,
    ["token check", "token create"],
    () => {
      const items = JSON.parse(fs.readFileSync(json, "utf8")).items as {
        stringData?: Record<string, string>;
        data?: Record<string, string>;
      }[];
      const last = items.at(-1)!;
      const field = (k: string) => last.stringData?.[k] ?? atob(last.data![k]!);
      const token = `${field("token-id")}.${field("token-secret")}`;
      return { argv: jk(["token", "check", token, "--secrets", json]), cwd: work };
    },
  );
}

/**
 * The Node version inside the binary (`joinkit version -o json`'s runtime; the build takes its
 * Node from the npm registry, not the host's `node`), or the host's when it does not say.
 */
function binaryRuntime(): string {
  try {
    const v = JSON.parse(execFileSync(BIN, ["version", "-o", "json"], { encoding: "utf8" }));
    if (typeof v?.runtime?.version === "string") return `v${v.runtime.version}`;
  } catch {
    // an older binary without `version -o json`
  }
  return execFileSync("node", ["--version"], { encoding: "utf8" }).trim();
}

/** The 1, 5 and 15 minute load averages (the machine may be shared). */
function loadavg(): string {
  return os.loadavg().map((x) => x.toFixed(2)).join(" ");
}

// ------------------------------------------------- issue 20: certs generate

/** Real kubeadm, when this machine has it (the judge of issue 20). */
const KUBEADM = process.env.KUBEADM ?? "/opt/judges/kubeadm";

/**
 * `certs generate` on the sample configuration of kubeadm-pki.md §6 (CPU):
 * RSA-2048 and ECDSA-P256 beside `kubeadm init phase certs all` +
 * `init phase kubeconfig all` (RSA-2048) when kubeadm is there, and three
 * control-plane nodes in one run against three single runs. Each run starts
 * from an empty directory.
 */
function certsGenerateCases(work: string): void {
  if (!fs.existsSync(path.join(ROOT, "commands", "certs", "generate.ts"))) return;
  const config = (name: string, alg: string) => {
    const file = path.join(work, `pki-${name}.yaml`);
    fs.writeFileSync(
      file,
      `apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
localAPIEndpoint: {advertiseAddress: 10.0.0.10, bindPort: 6443}
nodeRegistration: {name: cp-1}
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: v1.32.5
certificatesDir: ${path.join(work, `pki-${name}`, "pki")}
controlPlaneEndpoint: cp.example.com:6443
encryptionAlgorithm: ${alg}
apiServer: {certSANs: [extra.example.com, 192.0.2.7]}
`,
    );
    return file;
  };
  const rsa = config("rsa", "RSA-2048");
  const ecdsa = config("ecdsa", "ECDSA-P256");
  const nodes = path.join(work, "pki-nodes.txt");
  fs.writeFileSync(nodes, "cp-1 10.0.0.11\ncp-2 10.0.0.12\ncp-3 10.0.0.13\n");
  // `sh -c 'rm -rf DIR && exec CMD…'`: every run writes a fresh tree.
  const fresh = (dir: string, argv: Argv): Run => ({
    argv: ["sh", "-c", 'rm -rf "$0" && exec "$@"', dir, ...argv],
    cwd: work,
  });
  const ours = (cfg: string, out: string, ...more: string[]) =>
    fresh(path.join(work, out), [
      BIN,
      "certs",
      "generate",
      "--config",
      cfg,
      "--out-dir",
      path.join(work, out),
      ...more,
    ]);
  const kubeadmDir = path.join(work, "pki-rsa");
  const kubeadmRun: Run = {
    argv: [
      "sh",
      "-c",
      'rm -rf "$0" && "$1" init phase certs all --config "$2" >/dev/null && "$1" init phase kubeconfig all --config "$2" --kubeconfig-dir "$0" >/dev/null',
      kubeadmDir,
      KUBEADM,
      rsa,
    ],
    cwd: work,
  };
  const baseline = "kubeadm init phase certs all + kubeconfig all (RSA-2048)";
  if (fs.existsSync(KUBEADM)) {
    ratioCase(
      "binary: certs generate, sample tree RSA-2048 (CPU)",
      [],
      () => ours(rsa, "jk-rsa"),
      baseline,
      kubeadmRun,
      1,
      "CPU < 1×",
      RUNS,
      RUNS,
      "cpu",
    );
    ratioCase(
      "binary: certs generate, sample tree ECDSA-P256 (CPU)",
      [],
      () => ours(ecdsa, "jk-ecdsa"),
      baseline,
      kubeadmRun,
      0.25,
      "CPU ≤ 0.25×",
      RUNS,
      RUNS,
      "cpu",
    );
  } else {
    note(`${KUBEADM} not found: certs generate is measured without kubeadm beside it`);
    budgetCase(
      "binary: certs generate, sample tree RSA-2048 (CPU)",
      [],
      () => ours(rsa, "jk-rsa"),
      1500,
      "cpu",
    );
    budgetCase(
      "binary: certs generate, sample tree ECDSA-P256 (CPU)",
      [],
      () => ours(ecdsa, "jk-ecdsa"),
      400,
      "cpu",
    );
  }
  const single = path.join(work, "jk-single");
  const threeSingles: Run = {
    argv: [
      "sh",
      "-c",
      'for n in 1 2 3; do rm -rf "$0" && "$1" certs generate --config "$2" --out-dir "$0" || exit 1; done',
      single,
      BIN,
      rsa,
    ],
    cwd: work,
  };
  ratioCase(
    "binary: certs generate, three nodes in one run RSA-2048 (CPU)",
    [],
    () => ours(rsa, "jk-three", nodes),
    "three single runs",
    threeSingles,
    0.67,
    "CPU ≤ 0.67×",
    RUNS,
    RUNS,
    "cpu",
  );
}

async function main(): Promise<void> {
  const tBench = performance.now();
  const loadStart = loadavg();
  const info = ensureBinaries();
  const anchor = buildAnchor();
  if ("skipped" in anchor) note(anchor.skipped);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "joinkit-bench-"));
  try {
    await makeInputs(work);
    const runtimes: [string, (args: string[]) => Argv, Argv][] = [
      [
        "deno run",
        (args) => [DENO, "run", "-A", path.join(ROOT, "main.ts"), ...args],
        [DENO, "run", "-A", path.join(ROOT, "bench", "hello.ts")],
      ],
      ["binary", (args) => [BIN, ...args], [NODE, path.join(work, "hello.js")]],
    ];
    // Issue 13 measures the binary against `node hello.js` (what a Node tool costs to start);
    // dist/bench/hello, the same SEA machinery with nothing to warm, is a reference row below.
    fs.writeFileSync(path.join(work, "hello.js"), 'process.stdout.write("hello\\n");\n');
    const token = "abcdef.0123456789abcdef";
    const ca = path.join(work, "ca.crt");

    // Start-up: each against a hello-world on the same runtime.
    for (const [rt, jk, hello] of runtimes) {
      const base = rt === "binary" ? "node hello.js" : "hello-world (deno run)";
      // The binary: within 1.15× of node hello.js. deno run: reported against a plain
      // console.log hello world (bench/hello.ts imports nothing), not targeted.
      const startTarget = rt === "binary" ? 1.15 : Infinity;
      const heavyTarget = rt === "binary" ? 2.5 : Infinity;
      const helloRun: Run = { argv: hello, cwd: work };
      const c = (name: string, needs: string[], args: () => string[], max: number) =>
        ratioCase(
          `${rt}: ${name}`,
          needs,
          () => ({ argv: jk(args()), cwd: work }),
          base,
          helloRun,
          max,
          max === Infinity ? "none (reported)" : `≤ ${max}×`,
          RUNS,
        );
      c("--version", [], () => ["--version"], startTarget);
      c("token generate", ["token generate"], () => ["token", "generate"], startTarget);
      c("ca hash", ["ca hash"], () => ["ca", "hash", ca], startTarget);
      c("join-command", ["join-command"], () => [
        "join-command",
        "--server",
        "10.0.0.1:6443",
        "--token",
        token,
        "--ca",
        ca,
      ], startTarget);
      c("rbac (YAML)", ["rbac"], () => ["rbac"], heavyTarget);
      c("ca create ecdsa-p256 (X.509)", ["ca create"], () => [
        "ca",
        "create",
        "--out-dir",
        path.join(work, "ca-" + rt.replace(" ", "-")),
        "--key-type",
        "ecdsa-p256",
        "--force",
      ], heavyTarget);
    }

    // Reference: the SEA machinery itself (a hello-world built the same way) against node.
    ratioCase(
      "binary: hello-world built the same way (SEA + code caches)",
      [],
      () => ({ argv: [HELLO_BIN], cwd: work }),
      "node hello.js",
      { argv: [NODE, path.join(work, "hello.js")], cwd: work },
      Infinity,
      "none (reference)",
      RUNS,
    );

    certsGenerateCases(work);

    // Node parses NODE_EXTRA_CA_CERTS's bundle at every start, before any JavaScript (~80 ms
    // of this machine's `node hello.js`): the binary pays it too, so the rows above carry it
    // on both sides. For reference, the same pairs without it.
    const extraCa = process.env.NODE_EXTRA_CA_CERTS;
    if (extraCa) {
      const unset = ["NODE_EXTRA_CA_CERTS"];
      const nodeHello: Run = { argv: [NODE, path.join(work, "hello.js")], cwd: work, unset };
      for (
        const [name, args] of [
          ["--version", ["--version"]],
          ["ca hash", ["ca", "hash", ca]],
        ] as const
      ) {
        ratioCase(
          `binary: ${name}, without NODE_EXTRA_CA_CERTS`,
          [],
          () => ({ argv: [BIN, ...args], cwd: work, unset }),
          "node hello.js, without it",
          nodeHello,
          Infinity,
          "none (reference)",
          RUNS,
        );
      }
    }

    // Throughput, on the binary (what ships).
    const jk = (args: string[]): Argv => [BIN, ...args];
    const to = (f: string) => ["ignore", fs.openSync(f, "w"), "ignore"] as const;
    budgetCase(
      `binary: token create --count ${N_TOKENS}`,
      ["token create"],
      () => ({ argv: jk(["token", "create", "--count", String(N_TOKENS)]), cwd: work }),
      1000,
    );
    budgetCase(
      `binary: cluster-info sign, ${N_TOKENS} token Secrets`,
      ["cluster-info sign", "cluster-info create", "token create"],
      () => {
        const secrets = path.join(work, "secrets.yaml");
        const info = path.join(work, "cluster-info.yaml");
        execFileSync(BIN, ["token", "create", "--count", String(N_TOKENS)], {
          cwd: work,
          stdio: [...to(secrets)],
        });
        execFileSync(
          BIN,
          ["cluster-info", "create", "--ca", ca, "--server", "https://10.0.0.1:6443"],
          { cwd: work, stdio: [...to(info)] },
        );
        return { argv: jk(["cluster-info", "sign", info, "--secrets", secrets]), cwd: work };
      },
      500,
      "cpu",
    );
    // Issue 21: sealing and SOPS-encrypting a fleet of token Secrets (6 values each). The
    // controller certificate is the test suite's (RSA-4096, kubeseal's default key size).
    const sealCert = path.join(ROOT, "tests", "fixtures", "gitops", "controller.crt");
    const fleetSecrets = (): string => {
      const f = path.join(work, "seal-secrets.yaml");
      if (!fs.existsSync(f)) {
        execFileSync(BIN, ["token", "create", "--count", String(N_TOKENS)], {
          cwd: work,
          stdio: [...to(f)],
        });
      }
      return f;
    };
    budgetCase(
      `binary: seal, ${N_TOKENS} token Secrets (RSA-4096 controller key)`,
      ["seal", "token create"],
      () => ({
        argv: jk(["seal", "--cert", sealCert, "--now", "2026-12-01T00:00:00Z", fleetSecrets()]),
        cwd: work,
      }),
      10_000,
      "cpu",
    );
    budgetCase(
      `binary: encrypt (SOPS, age), ${N_TOKENS} token Secrets`,
      ["encrypt", "token create"],
      () => ({
        argv: jk([
          "encrypt",
          "--age-recipient",
          "age1e2j95m5k8d0rlp5fmhesplc79haljmuhyucjy7qzf7cnxxwp0qwquz4n4w",
          "--now",
          "2026-12-01T00:00:00Z",
          fleetSecrets(),
        ]),
        cwd: work,
      }),
      5_000,
      "cpu",
    );
    budgetCase(
      `binary: token create --count ${BIG_TOKENS}`,
      ["token create"],
      () => ({ argv: jk(["token", "create", "--count", String(BIG_TOKENS)]), cwd: work }),
      2000,
      "cpu",
    );
    budgetCase(
      `binary: token list, ${BIG_TOKENS} token Secrets (token create's output)`,
      ["token list", "token create"],
      () => {
        const secrets = path.join(work, `secrets-${BIG_TOKENS}.yaml`);
        execFileSync(BIN, ["token", "create", "--count", String(BIG_TOKENS)], {
          cwd: work,
          stdio: [...to(secrets)],
        });
        return { argv: jk(["token", "list", secrets]), cwd: work };
      },
      2000,
      "cpu",
    );
    // doctor over what init writes for a fleet of tokens (issue 12: "a few seconds").
    budgetCase(
      `binary: doctor, init --out-dir output with ${N_CERTS} tokens`,
      ["doctor", "init", "token generate"],
      () => {
        const tokens = execFileSync(BIN, ["token", "generate", "--count", String(N_CERTS)], {
          cwd: work,
          encoding: "utf8",
        }).trim().split("\n");
        const out = path.join(work, "doctor-init");
        execFileSync(BIN, [
          "init",
          "--server",
          "https://10.0.0.1:6443",
          "--ca",
          ca,
          ...tokens.flatMap((t) => ["--token", t]),
          "--out-dir",
          out,
          "--force",
        ], { cwd: work, stdio: "ignore" });
        return { argv: jk(["doctor", out]), cwd: work };
      },
      3000,
      "cpu",
    );

    // Fleet operations against Go's crypto/x509 in one process (issue 13's yardstick).
    if ("bin" in anchor) goCases(anchor.bin, work);
    memCases("bin" in anchor ? anchor.bin : undefined, work);

    // openssl spawns once per file: time the loop over a sample and scale it
    // (its cost is linear in the files), to keep the bench within minutes.
    const sample = Math.min(N_CERTS, 250);
    const loop = (body: string): Run => ({
      argv: ["sh", "-c", `i=0; for f in $(ls | sort | head -n ${sample}); do ${body}; done`],
      cwd: path.join(work, body.includes("-req") ? "csrs" : "certs"),
      scale: N_CERTS / sample,
    });
    const per = sample < N_CERTS ? ` (${sample} files, ×${N_CERTS / sample})` : "";
    ratioCase(
      `binary: csr sign, ${N_CERTS} ECDSA P-256 CSRs, ECDSA CA`,
      ["csr sign"],
      () => {
        const all = path.join(work, "csrs.pem");
        const dir = path.join(work, "csrs");
        fs.writeFileSync(
          all,
          fs.readdirSync(dir).sort().map((f) => fs.readFileSync(path.join(dir, f), "utf8"))
            .join(""),
        );
        return {
          argv: jk(["csr", "sign", all, "--ca", ca, "--ca-key", path.join(work, "ca.key")]),
          cwd: work,
        };
      },
      `loop of openssl x509 -req${per}`,
      loop(
        `i=$((i+1)); openssl x509 -req -in "$f" -CA ../ca.crt -CAkey ../ca.key -days 365 ` +
          `-set_serial $i -out /dev/null 2>/dev/null`,
      ),
      0.1,
      "≥ 10× faster",
      LOOP_RUNS,
      1,
    );
    ratioCase(
      `binary: cert inspect, ${N_CERTS} certs`,
      ["cert inspect"],
      () => ({ argv: jk(["cert", "inspect", path.join(work, "certs")]), cwd: work }),
      `loop of openssl x509 -noout -text${per}`,
      loop(`openssl x509 -noout -text -in "$f" >/dev/null`),
      0.1,
      "≥ 10× faster",
      LOOP_RUNS,
      1,
    );
    ratioCase(
      `binary: cert verify, ${N_CERTS} certs`,
      ["cert verify"],
      () => ({
        argv: jk(["cert", "verify", "--ca", ca, path.join(work, "certs")]),
        cwd: work,
      }),
      "one openssl verify -CAfile",
      {
        argv: ["sh", "-c", `openssl verify -CAfile ${ca} certs/*.crt >/dev/null`],
        cwd: work,
      },
      3,
      "within 3×",
      LOOP_RUNS,
    );
    for (const [rt, jkr] of runtimes) {
      ratioCase(
        `${rt}: ca hash`,
        ["ca hash"],
        () => ({ argv: jkr(["ca", "hash", ca]), cwd: work }),
        "kubeadm's openssl pipeline",
        {
          argv: [
            "sh",
            "-c",
            `openssl x509 -pubkey -in ${ca} | openssl pkey -pubin -outform der 2>/dev/null | ` +
            `openssl dgst -sha256 -hex | sed 's/^.* //'`,
          ],
          cwd: work,
        },
        Infinity,
        "none (reference)",
        RUNS,
      );
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
    fs.rmSync(CPU_FILE, { force: true });
  }

  const nproc = execFileSync("nproc", { encoding: "utf8" }).trim();
  const size = fs.statSync(BIN).size;
  const header = [
    "| case | wall | CPU | peak RSS | baseline | baseline wall | baseline CPU | wall ratio | " +
    "CPU ratio | target | met? |",
    "| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- | --- |",
  ];
  const table = header.concat(
    rows.map((r) =>
      `| ${r.name} | ${r.wall} | ${r.cpu} | ${r.rss} | ${r.baseline} | ${r.baseWall} | ` +
      `${r.baseCpu} | ${r.ratio} | ${r.cpuRatio} | ${r.target} | ${r.met} |`
    ),
  ).join("\n");
  const load = loadavg();
  const meta = `${new Date().toISOString().slice(0, 16)}Z, nproc ${nproc}, ` +
    `load ${loadStart} at the start, ${load} at the end, ` +
    `deno ${Deno.version.deno}, binary: ${
      info.route === "sea"
        ? `Node ${binaryRuntime()} SEA${info.codeCache ? " + V8 code caches" : ""}`
        : "deno compile"
    } ` +
    `${(size / 1048576).toFixed(1)} MiB, \`node hello.js\` on ${
      execFileSync(NODE, ["--version"], { encoding: "utf8" }).trim()
    } (${NODE === "node" ? "the host's node" : "the binary's own runtime"}); ` +
    `start-up medians of ${RUNS} runs, ` +
    `throughput of ${LOOP_RUNS}, openssl loops once (interleaved, after a warm-up); ` +
    `"met?" judges wall-time medians unless the target says CPU (median user+sys CPU time of ` +
    `the whole process, GNU time, which a loaded machine disturbs less); peak RSS is the ` +
    `largest over the runs; ` +
    ("bin" in anchor
      ? `Go anchor: bench/anchor built with ${anchor.version}, inputs generated by it`
      : anchor.skipped);
  process.stdout.write(table + "\n");
  note(meta);
  note(`took ${ms(performance.now() - tBench)}`);
  if (!opts["no-write"]) {
    fs.writeFileSync(
      path.join(ROOT, "bench", "RESULTS.md"),
      `# joinkit benchmark\n\nGenerated by \`deno task bench\` (bench/bench.ts); do not edit.\n\n` +
        `${meta}.\n\n${table}\n`,
    );
    // `deno fmt --check` (part of npm test) covers Markdown: keep the file formatted.
    spawnSync(DENO, ["fmt", "--quiet", "bench/RESULTS.md"], { cwd: ROOT, stdio: "ignore" });
  }
}

await main();
