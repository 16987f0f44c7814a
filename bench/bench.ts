/**
 * joinkit's benchmark: start-up of `deno run` and of the built binary against
 * a hello-world run the same way, and throughput against openssl. Builds what
 * it needs (dist/joinkit when missing or older than the sources, and a
 * hello-world binary), generates its inputs in a temporary directory, times
 * every run with performance.now() and prints ONE Markdown table, also written
 * to bench/RESULTS.md with the date and `nproc`.
 *
 * Usage: deno run -A bench/bench.ts [--runs N] [--loop-runs N] [--n 1000] [--no-write]
 * (a smaller --n or --runs is for trying the bench out; RESULTS.md is for the defaults)
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

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const DENO = process.execPath;
const BIN = path.join(ROOT, "dist", "joinkit");
const HELLO_BIN = path.join(ROOT, "dist", "bench", "hello");

const { values: opts } = parseArgs({
  args: process.argv.slice(2),
  options: {
    runs: { type: "string", default: "15" },
    "loop-runs": { type: "string", default: "3" },
    "no-write": { type: "boolean", default: false },
    n: { type: "string", default: "1000" },
  },
});
/** CSRs and certificates per throughput case (tokens: 10×). */
const N_CERTS = Math.max(1, Number(opts.n));
const N_TOKENS = 10 * N_CERTS;
const RUNS = Math.max(3, Number(opts.runs));
const LOOP_RUNS = Math.max(1, Number(opts["loop-runs"]));

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
}

/** GNU time, when present, adds each run's CPU time (user + sys, children included). */
const GNU_TIME = fs.existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;
const CPU_FILE = path.join(os.tmpdir(), `joinkit-bench-cpu-${process.pid}`);

/** One timed run: wall and (with GNU time) CPU milliseconds. */
interface Timing {
  wall: number;
  cpu: number | undefined;
}

/** Runs once and times it, or throws with the exit code and stderr. */
function timeOnce(run: Run): Timing {
  const stdin = run.stdin ? fs.openSync(run.stdin, "r") : "ignore";
  const devnull = fs.openSync("/dev/null", "w");
  const argv = GNU_TIME ? [GNU_TIME, "-f", "%U %S", "-o", CPU_FILE, ...run.argv] : run.argv;
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
    if (GNU_TIME) {
      const [u, s] = fs.readFileSync(CPU_FILE, "utf8").trim().split(/\s+/).slice(-2).map(Number);
      cpu = ((u ?? NaN) + (s ?? NaN)) * 1000 * (run.scale ?? 1);
    }
    return { wall, cpu };
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

/** Medians of several runs. */
interface Medians {
  wall: number;
  cpu: number | undefined;
}

function medians(ts: Timing[]): Medians {
  const cpus = ts.map((t) => t.cpu).filter((c): c is number => c !== undefined && !isNaN(c));
  return {
    wall: median(ts.map((t) => t.wall)),
    cpu: cpus.length === ts.length ? median(cpus) : undefined,
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
  const { x509 } = await import("../lib/pki/x509.ts");
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
  snapshot: boolean;
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
    hello?.route !== info!.route || hello?.snapshot !== info!.snapshot
  ) {
    build([
      "--route",
      info!.route,
      ...(info!.snapshot ? [] : ["--no-snapshot"]),
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
  median: string;
  baseline: string;
  baseMedian: string;
  ratio: string;
  cpuRatio: string;
  target: string;
  met: string;
}

const rows: Row[] = [];

function ms(x: number): string {
  return x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : `${Math.round(x)} ms`;
}

function missingRow(name: string, baseline: string, target: string, missing: string[]): void {
  rows.push({
    name,
    median: "n/a (command missing)",
    baseline,
    baseMedian: "",
    ratio: "",
    cpuRatio: "",
    target,
    met: `n/a (${missing.join(", ")} missing)`,
  });
}

function failRow(name: string, baseline: string, target: string, e: unknown): void {
  const why = e instanceof Error ? e.message : String(e);
  note(`${name}: ${why}`);
  rows.push({
    name,
    median: `failed: ${why.slice(0, 60).replaceAll("|", "\\|")}`,
    baseline,
    baseMedian: "",
    ratio: "",
    cpuRatio: "",
    target,
    met: "no",
  });
}

/** A case timed against a baseline; target is the highest ratio allowed. */
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
): void {
  const missing = needs.filter((n) => !haveCommand(n));
  if (missing.length) return missingRow(name, baselineName, target, missing);
  try {
    const [a, b] = timePair(run(), baseline, runs, baseRuns);
    const ratio = a.wall / b!.wall;
    rows.push({
      name,
      median: ms(a.wall),
      baseline: baselineName,
      baseMedian: ms(b!.wall),
      ratio: ratio.toFixed(2) + "×",
      cpuRatio: a.cpu !== undefined && b!.cpu ? (a.cpu / b!.cpu).toFixed(2) + "×" : "",
      target,
      met: maxRatio === Infinity ? "—" : ratio <= maxRatio ? "yes" : "**no**",
    });
  } catch (e) {
    failRow(name, baselineName, target, e);
  }
}

/** A case with an absolute time budget. */
function budgetCase(name: string, needs: string[], run: () => Run, budgetMs: number): void {
  const target = `< ${ms(budgetMs)}`;
  const missing = needs.filter((n) => !haveCommand(n));
  if (missing.length) return missingRow(name, "—", target, missing);
  try {
    const [a] = timePair(run(), undefined, LOOP_RUNS);
    rows.push({
      name,
      median: ms(a.wall),
      baseline: "—",
      baseMedian: "",
      ratio: "",
      cpuRatio: a.cpu !== undefined ? `cpu ${ms(a.cpu)}` : "",
      target,
      met: a.wall < budgetMs ? "yes" : "**no**",
    });
  } catch (e) {
    failRow(name, "—", target, e);
  }
}

async function main(): Promise<void> {
  const tBench = performance.now();
  const info = ensureBinaries();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "joinkit-bench-"));
  try {
    await makeInputs(work);
    const runtimes: [string, (args: string[]) => Argv, Argv][] = [
      [
        "deno run",
        (args) => [DENO, "run", "-A", path.join(ROOT, "main.ts"), ...args],
        [DENO, "run", "-A", path.join(ROOT, "bench", "hello.ts")],
      ],
      ["binary", (args) => [BIN, ...args], [HELLO_BIN]],
    ];
    const token = "abcdef.0123456789abcdef";
    const ca = path.join(work, "ca.crt");

    // Start-up: each against a hello-world on the same runtime.
    for (const [rt, jk, hello] of runtimes) {
      const base = `hello-world (${rt})`;
      const helloRun: Run = { argv: hello, cwd: work };
      const c = (name: string, needs: string[], args: () => string[], max: number) =>
        ratioCase(
          `${rt}: ${name}`,
          needs,
          () => ({ argv: jk(args()), cwd: work }),
          base,
          helloRun,
          max,
          `≤ ${max}×`,
          RUNS,
        );
      c("--version", [], () => ["--version"], 1.3);
      c("token generate", ["token generate"], () => ["token", "generate"], 1.3);
      c("ca hash", ["ca hash"], () => ["ca", "hash", ca], 1.3);
      c("join-command", ["join-command"], () => [
        "join-command",
        "--server",
        "10.0.0.1:6443",
        "--token",
        token,
        "--ca",
        ca,
      ], 1.3);
      c("rbac (YAML)", ["rbac"], () => ["rbac"], 2.5);
      c("ca create ecdsa-p256 (X.509)", ["ca create"], () => [
        "ca",
        "create",
        "--out-dir",
        path.join(work, "ca-" + rt.replace(" ", "-")),
        "--key-type",
        "ecdsa-p256",
        "--force",
      ], 2.5);
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
      1000,
    );

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
    "| case | median (wall) | baseline | baseline median | ratio | target | met? | CPU ratio |",
    "| --- | ---: | --- | ---: | ---: | --- | --- | ---: |",
  ];
  const table = header.concat(
    rows.map((r) =>
      `| ${r.name} | ${r.median} | ${r.baseline} | ${r.baseMedian} | ${r.ratio} | ${r.target} | ${r.met} | ${r.cpuRatio} |`
    ),
  ).join("\n");
  const load = os.loadavg().map((x) => x.toFixed(2)).join(" ");
  const meta = `${new Date().toISOString().slice(0, 16)}Z, nproc ${nproc}, load ${load}, ` +
    `deno ${Deno.version.deno}, binary: ${
      info.route === "sea"
        ? `Node ${execFileSync("node", ["--version"], { encoding: "utf8" }).trim()} SEA${
          info.snapshot ? " + V8 snapshot" : ""
        }`
        : "deno compile"
    } ` +
    `${(size / 1048576).toFixed(1)} MiB; start-up medians of ${RUNS} runs, ` +
    `throughput of ${LOOP_RUNS}, openssl loops once (interleaved, after a warm-up); ` +
    `"met?" judges wall-time medians; "CPU ratio" compares median user+sys CPU time ` +
    `(GNU time), which a loaded machine disturbs less`;
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
