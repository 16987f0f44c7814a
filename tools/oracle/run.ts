/**
 * `deno task oracle`: seeded differential fuzzing of joinkit's Go-exact
 * judgements against Go itself (tools/oracle/main.go, built here).
 *
 *   deno task oracle [--seed N] [--cases N] [--only chain|cert|csr|pem|rfc3339|kubeconfig|regexp]
 *                    [--go123-plain]
 *
 * The Go program is built with the go125/ overlay (Go 1.23.5's standard
 * library from the installed toolchain's GOROOT, with go125/'s patches for the
 * Go 1.24/1.25 rules joinkit follows applied at build time: overlay.ts), so Go
 * itself gives the 1.25 verdicts; `--go123-plain` builds without it and lets
 * intended.ts classify those differences instead.
 *
 * Every disagreement is written to .tmp/oracle/<judgement>-<seed>-<i>.* with
 * a one-line summary; known Go-version differences (intended.ts) are counted
 * apart. Exit 1 when any disagreement is unexplained, 2 when Go is missing.
 *
 * @module
 */
// deno-lint-ignore-file no-console

import { b64, mutate, Rng, subSeed, unb64 } from "./der.ts";
import {
  certSet,
  chainCase,
  csrSpec,
  kubeconfigCase,
  pemCase,
  pemOf,
  rfc3339Case,
  type Spec,
} from "./generators.ts";
import { classify, differingFields, type Facts } from "./intended.ts";
import * as jk from "./joinkit.ts";
import { knownRegexpDifference, regexpCase } from "./regexp_gen.ts";
import { buildRegexpJudge } from "./regexp_build.ts";
import { PatchError, writeOverlay } from "./overlay.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const OUT = `${ROOT}.tmp/oracle`;
const JUDGEMENTS = ["rfc3339", "pem", "cert", "csr", "chain", "kubeconfig", "regexp"] as const;
type Judgement = typeof JUDGEMENTS[number];

function flag(name: string, def: string): string {
  const i = Deno.args.indexOf(`--${name}`);
  if (i >= 0 && Deno.args[i + 1] !== undefined) return Deno.args[i + 1]!;
  const eq = Deno.args.find((a) => a.startsWith(`--${name}=`));
  return eq ? eq.slice(name.length + 3) : def;
}

const seed = Number(flag("seed", "1"));
const casesPer = Number(flag("cases", "10000"));
const only = flag("only", "");
/** Without the go125 overlay: plain Go 1.23.5, version differences classified by intended.ts. */
let plain = Deno.args.includes("--go123-plain");
if (only && !(JUDGEMENTS as readonly string[]).includes(only)) {
  console.error(`oracle: --only must be one of ${JUDGEMENTS.join(", ")}`);
  Deno.exit(2);
}

// ---- Go ----

async function findGo(): Promise<string | undefined> {
  for (const p of ["/usr/lib/go-1.23/bin/go"]) {
    try {
      await Deno.stat(p);
      return p;
    } catch { /* next */ }
  }
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      await Deno.stat(`${dir}/go`);
      return `${dir}/go`;
    } catch { /* next */ }
  }
  return undefined;
}

const OVERLAY_SRC = `${ROOT}tools/oracle/go125`;
let BIN = `${OUT}/oracle`;

const goOut = async (go: string, args: string[]) =>
  new TextDecoder().decode(
    (await new Deno.Command(go, { args, stdout: "piped", env: { GOTOOLCHAIN: "local" } }).output())
      .stdout,
  ).trim();

async function build(): Promise<void> {
  const go = await findGo();
  if (!go) {
    console.error(
      "oracle: Go not found (looked for /usr/lib/go-1.23/bin/go and go on PATH); install it, e.g. `apt-get install -y golang-go` (Debian backports has golang-1.23)",
    );
    Deno.exit(2);
  }
  await Deno.mkdir(OUT, { recursive: true });
  const version = await goOut(go, ["env", "GOVERSION"]);
  if (!plain && !version.startsWith("go1.23")) {
    // The patches are against Go 1.23.5's sources; another toolchain cannot take them.
    console.log(
      `oracle: ${version} cannot take the go125 overlay (made for go1.23); running --go123-plain`,
    );
    plain = true;
  }
  let overlay: string | undefined;
  if (!plain) {
    // The overlay is this toolchain's own sources with go125/'s patches applied.
    try {
      overlay = await writeOverlay(
        await goOut(go, ["env", "GOROOT"]),
        OVERLAY_SRC,
        `${OUT}/overlay`,
      );
    } catch (e) {
      if (!(e instanceof PatchError)) throw e;
      console.log(`oracle: go125 overlay: ${e.message}; running --go123-plain`);
      plain = true;
    }
  }
  const args = ["build", "-o"];
  if (plain) {
    BIN = `${OUT}/oracle-go123`;
    args.push(BIN);
  } else {
    args.push(BIN, "-overlay", overlay!);
  }
  const env: Record<string, string> = { GOFLAGS: "-mod=mod", GOPROXY: "off", GOTOOLCHAIN: "local" };
  if (!Deno.env.get("GOCACHE")) env.GOCACHE = `${OUT}/gocache`;
  const r = await new Deno.Command(go, {
    args: [...args, "."],
    cwd: `${ROOT}tools/oracle`,
    env,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!r.success) {
    console.error("oracle: go build failed");
    Deno.exit(2);
  }
  const v = await new Deno.Command(go, { args: ["version"], stdout: "piped" }).output();
  console.log(
    `oracle: ${new TextDecoder().decode(v.stdout).trim()} (${go}), ${
      plain ? "plain (no overlay)" : "with the go125 overlay (Go 1.25 rules)"
    }`,
  );
}

// deno-lint-ignore no-explicit-any
type Any = any;

/**
 * Runs one batch of requests through one oracle process. Generation batches
 * (`godebug`) turn rsa1024min off, as x509.CreateCertificate verifies its own
 * signature and the overlay's Go 1.24 rule would refuse small test keys.
 */
async function oracle(reqs: unknown[], godebug = "", bin = BIN): Promise<Any[]> {
  const child = new Deno.Command(bin, {
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
    env: { GODEBUG: godebug },
  }).spawn();
  const out = child.output();
  const w = child.stdin.getWriter();
  const enc = new TextEncoder();
  let buf = "";
  for (const r of reqs) {
    buf += JSON.stringify(r) + "\n";
    if (buf.length > 1 << 20) {
      await w.write(enc.encode(buf));
      buf = "";
    }
  }
  await w.write(enc.encode(buf));
  await w.close();
  const res = await out;
  const lines = new TextDecoder().decode(res.stdout).split("\n").filter((l) => l !== "");
  if (lines.length !== reqs.length) {
    throw new Error(`oracle answered ${lines.length} of ${reqs.length} requests`);
  }
  return lines.map((l) => JSON.parse(l));
}

// ---- cases ----

interface Case {
  /** Request for the Go judge. */
  go: Any;
  /** joinkit's verdict. */
  joinkit: () => Promise<Any>;
  /** Reproducer files: extension -> content. */
  files: Record<string, string | Uint8Array>;
  note?: string;
}

const GEN_GODEBUG = "rsa1024min=0";

const pemCert = (der: Uint8Array) =>
  `-----BEGIN CERTIFICATE-----\n${
    (b64(der).match(/.{1,64}/g) ?? []).join("\n")
  }\n-----END CERTIFICATE-----\n`;

/** Builds certificate sets with the Go program; failed specs are dropped. */
async function genSets(specs: Spec[][]): Promise<(Uint8Array[] | undefined)[]> {
  const ans = await oracle(specs.map((certs) => ({ op: "gen", certs })), GEN_GODEBUG);
  return ans.map((a) => (a.certs ? (a.certs as string[]).map(unb64) : undefined));
}

function rfc3339Cases(r: Rng, n: number): Promise<Case[]> {
  return Promise.resolve(Array.from({ length: n }, () => {
    const s = rfc3339Case(r);
    return { go: { op: "rfc3339", s }, joinkit: () => jk.judgeRfc3339(s), files: { txt: s } };
  }));
}

let pool: Uint8Array[] | undefined;

/** A pool of well-formed certificates (CAs and leaves) for PEM and kubeconfig cases. */
async function certPool(): Promise<Uint8Array[]> {
  if (pool) return pool;
  const r = new Rng(subSeed(seed, "pool"));
  const sets = await genSets(Array.from({ length: 20 }, () => chainCase(r).certs));
  pool = sets.flatMap((s) => s ?? []);
  return pool;
}

async function pemCases(r: Rng, n: number): Promise<Case[]> {
  const ders = await certPool();
  return Array.from({ length: n }, () => {
    const text = pemCase(r, ders);
    const data = new TextEncoder().encode(text);
    return {
      go: { op: "pem", data: b64(data) },
      joinkit: () => jk.judgePem(data),
      files: { pem: data },
    };
  });
}

async function certCases(r: Rng, n: number): Promise<Case[]> {
  const specs = Array.from({ length: Math.ceil(n / 6) }, () => certSet(r));
  const sets = await genSets(specs);
  const base = sets.flatMap((s) => s ?? []);
  const out: Case[] = [];
  while (out.length < n) {
    let der: Uint8Array = r.pick(base);
    let note = "generated";
    if (r.chance(0.6)) [der, note] = mutate(r, der);
    const d = der;
    out.push({
      go: { op: "cert", der: b64(d) },
      joinkit: () => jk.judgeCert(d),
      files: { der: d },
      note,
    });
  }
  return out;
}

async function csrCases(r: Rng, n: number): Promise<Case[]> {
  const specs = Array.from({ length: Math.ceil(n / 3) }, () => csrSpec(r));
  const ans = await oracle(specs.map((csr) => ({ op: "gencsr", csr })), GEN_GODEBUG);
  const base = ans.filter((a) => a.der).map((a) => unb64(a.der));
  const out: Case[] = [];
  while (out.length < n) {
    let der: Uint8Array = r.pick(base);
    let note = "generated";
    if (r.chance(0.5)) [der, note] = mutate(r, der);
    const d = der;
    out.push({
      go: { op: "csr", der: b64(d) },
      joinkit: () => jk.judgeCsr(d),
      files: { der: d },
      note,
    });
  }
  return out;
}

async function chainCases(r: Rng, n: number): Promise<Case[]> {
  // Some random specs are ones Go will not create (e.g. a key/algorithm mismatch): make
  // more than needed and keep the first n that Go built.
  const cases = Array.from({ length: Math.ceil(n * 1.15) + 10 }, () => chainCase(r));
  const sets = await genSets(cases.map((c) => c.certs));
  const out: Case[] = [];
  cases.forEach((c, i) => {
    const ders = sets[i];
    if (!ders || out.length >= n) return;
    const pick = (role: string) => ders.filter((_, k) => c.roles[k] === role);
    const leaf = pick("leaf")[0]!;
    const input: jk.ChainInput = {
      leaf,
      intermediates: pick("inter"),
      roots: pick("root"),
      time: c.time,
      keyUsages: c.keyUsages,
      dnsName: c.dnsName,
    };
    const opts = { time: c.time, keyUsages: c.keyUsages, dnsName: c.dnsName };
    out.push({
      go: {
        op: "chain",
        leaf: pemCert(leaf),
        intermediates: input.intermediates.map(pemCert).join(""),
        roots: input.roots.map(pemCert).join(""),
        ...opts,
      },
      joinkit: () => jk.judgeChain(input),
      files: {
        "leaf.pem": pemCert(leaf),
        "intermediates.pem": input.intermediates.map(pemCert).join(""),
        "roots.pem": input.roots.map(pemCert).join(""),
        "opts.json": JSON.stringify(opts) + "\n",
      },
    });
  });
  return out;
}

async function kubeconfigCases(r: Rng, n: number): Promise<Case[]> {
  const ders = (await certPool()).slice(0, 12);
  const spki = await oracle(ders.map((d) => ({ op: "cert", der: b64(d) })));
  const pems = ders.map((d, i) => ({
    pem: pemOf("CERTIFICATE", d, new Rng(i)),
    pin: spkiPin(d, spki[i]),
  }));
  return Array.from({ length: n }, () => {
    const { kubeconfig, pins } = kubeconfigCase(r, pems);
    return {
      go: { op: "kubeconfig", kubeconfig, pins },
      joinkit: () => jk.judgeKubeconfig(kubeconfig, pins),
      files: { "json": JSON.stringify({ kubeconfig, pins }, null, 1) + "\n" },
    };
  });
}

import { createHash } from "node:crypto";

/** `sha256:<hex of SPKI>` (the SPKI is found by walking the certificate). */
function spkiPin(der: Uint8Array, _ans: unknown): string {
  // TBS -> fields; SPKI is the 7th element (6th without version).
  const walkTop = (b: Uint8Array, at: number): [number, number, number] => {
    const first = b[at + 1]!;
    let len = first, hdr = 2;
    if (first & 0x80) {
      const n = first & 0x7f;
      len = 0;
      for (let k = 0; k < n; k++) len = len * 256 + b[at + 2 + k]!;
      hdr = 2 + n;
    }
    return [at + hdr, at + hdr + len, at];
  };
  const [certStart] = walkTop(der, 0);
  const [tbsStart, tbsEnd] = walkTop(der, certStart);
  let at = tbsStart;
  const elems: [number, number][] = [];
  while (at < tbsEnd) {
    const [, end, start] = walkTop(der, at);
    elems.push([start, end]);
    at = end;
  }
  const v = der[elems[0]![0]] === 0xa0 ? 1 : 0;
  const [s, e] = elems[v + 5]!;
  return "sha256:" + createHash("sha256").update(der.subarray(s, e)).digest("hex");
}

/** Go's regexp has its own small program and overlay (regexp_build.ts). */
const regexpBin = async () => buildRegexpJudge((await findGo())!, ROOT, OUT);

function regexpCases(r: Rng, n: number): Promise<Case[]> {
  return Promise.resolve(Array.from({ length: n }, () => {
    const c = regexpCase(r);
    return { go: c, joinkit: () => jk.judgeRegexp(c), files: { json: JSON.stringify(c) + "\n" } };
  }));
}

const BUILDERS: Record<Judgement, (r: Rng, n: number) => Promise<Case[]>> = {
  rfc3339: rfc3339Cases,
  pem: pemCases,
  cert: certCases,
  csr: csrCases,
  chain: chainCases,
  kubeconfig: kubeconfigCases,
  regexp: regexpCases,
};

// ---- comparison ----

/**
 * encoding/asn1's "tags don't match" text prints its fieldParameters with %+v,
 * and the tag field is a *int: a heap address, different on every run.
 */
const maskPointers = (s: unknown) => String(s).replace(/\btag:0x[0-9a-f]+/g, "tag:0x…");

/** Whether two verdicts agree, per judgement (README.md says what is compared). */
function agree(j: Judgement, go: Any, k: Any): boolean {
  if (go.ok !== k.ok) return false;
  switch (j) {
    case "rfc3339":
      return go.ok ? go.sec === k.sec && go.nsec === k.nsec : k.err === "" || go.err === k.err;
    case "chain":
      return go.ok ? JSON.stringify(go.chains) === JSON.stringify(k.chains) : go.err === k.err;
    case "cert":
    case "csr":
      if (!go.ok) return maskPointers(go.err) === maskPointers(k.err);
      if (differingFields(go.fields, k.fields).length) return false;
      return j === "cert" || go.check === k.check;
    case "pem":
      // On error ParseCertsPEM's callers drop the certificates parsed so far.
      return go.err === k.err &&
        (!go.ok || JSON.stringify(go.certs) === JSON.stringify(k.certs)) &&
        JSON.stringify(go.blocks) === JSON.stringify(k.blocks);
    case "regexp":
      return go.ok ? go.match === k.match : go.err === k.err;
    case "kubeconfig":
      if (go.ok) {
        return go.cluster === k.cluster && go.server === k.server &&
          (go.pinned === undefined || go.pinned === k.pinned);
      }
      if (go.stage !== k.stage) return false;
      if (go.err.startsWith("error converting") || go.stage === "parseCA") {
        return String(k.err).includes(go.err);
      }
      return true;
  }
}

const short = (v: unknown) => {
  const s = JSON.stringify(v, (k, x) => (k === "facts" || k === "model125" ? undefined : x));
  return s.length > 400 ? s.slice(0, 400) + "…" : s;
};

async function writeRepro(j: Judgement, i: number, c: Case, go: Any, k: Any): Promise<string> {
  const base = `${OUT}/${j}-${seed}-${i}`;
  for (const [ext, content] of Object.entries(c.files)) {
    if (typeof content === "string") await Deno.writeTextFile(`${base}.${ext}`, content);
    else await Deno.writeFile(`${base}.${ext}`, content);
  }
  await Deno.writeTextFile(
    `${base}.verdicts.json`,
    JSON.stringify({ judgement: j, seed, case: i, note: c.note, go, joinkit: k }, null, 1) + "\n",
  );
  return `${base}.*`;
}

interface Count {
  cases: number;
  agree: number;
  disagree: number;
  intended: number;
  skipped: number;
  reasons: Map<string, number>;
}

async function runJudgement(j: Judgement): Promise<Count> {
  for await (const e of Deno.readDir(OUT)) {
    if (e.name.startsWith(`${j}-${seed}-`)) await Deno.remove(`${OUT}/${e.name}`);
  }
  const t0 = performance.now();
  const r = new Rng(subSeed(seed, j));
  const cases = await BUILDERS[j](r, casesPer);
  const t1 = performance.now();
  const goAns = await oracle(cases.map((c) => c.go), "", j === "regexp" ? await regexpBin() : BIN);
  const t2 = performance.now();
  const count: Count = {
    cases: 0,
    agree: 0,
    disagree: 0,
    intended: 0,
    skipped: 0,
    reasons: new Map(),
  };
  let shown = 0;
  for (let i = 0; i < cases.length; i++) {
    const c = cases[i]!;
    const go = goAns[i];
    if (go.fatal || go.panic) {
      console.log(
        `${j} #${i}: oracle ${go.fatal ? "refused the request" : "panicked"}: ${
          go.fatal ?? go.panic
        }`,
      );
      count.skipped++;
      continue;
    }
    let k: Any;
    try {
      k = await c.joinkit();
    } catch (e) {
      k = {
        ok: false,
        err: `joinkit threw: ${
          e instanceof Error ? e.stack?.split("\n").slice(0, 3).join(" | ") : e
        }`,
      };
    }
    if (k.unavailable) {
      count.skipped++;
      if (count.skipped === 1) {
        console.log(`${j}: joinkit side unavailable (${k.unavailable}); skipped`);
      }
      continue;
    }
    count.cases++;
    if (agree(j, go, k)) {
      count.agree++;
      continue;
    }
    const known = j === "regexp" ? knownRegexpDifference(c.go.p, go, k) : undefined;
    const rule = known ? { id: known } : classify(
      { judgement: j, go, joinkit: k, facts: (go.facts ?? {}) as Facts },
      (g, kk) => agree(j, g, kk),
      plain,
    );
    if (rule) {
      count.intended++;
      count.reasons.set(rule.id, (count.reasons.get(rule.id) ?? 0) + 1);
      continue;
    }
    count.disagree++;
    const path = await writeRepro(j, i, c, go, k);
    if (shown++ < 40) console.log(`DISAGREE ${j} go=${short(go)} joinkit=${short(k)} ${path}`);
  }
  if (shown > 40) console.log(`${j}: ${shown - 40} more disagreements in ${OUT}`);
  const t3 = performance.now();
  console.log(
    `${j}: ${cases.length} cases (generate ${((t1 - t0) / 1000).toFixed(1)}s, Go ${
      ((t2 - t1) / 1000).toFixed(1)
    }s, joinkit ${((t3 - t2) / 1000).toFixed(1)}s)`,
  );
  return count;
}

await build();
await Deno.mkdir(OUT, { recursive: true });
const results: [Judgement, Count][] = [];
for (const j of JUDGEMENTS) {
  if (only && j !== only) continue;
  results.push([j, await runJudgement(j)]);
}
console.log(
  `\nseed ${seed}, ${casesPer} cases per judgement, Go ${
    plain ? "1.23.5 plain (--go123-plain)" : "1.23.5 + go125 overlay"
  }`,
);
console.log("judgement    cases  agree  disagree  intended  skipped");
for (const [j, c] of results) {
  console.log(
    `${j.padEnd(11)} ${String(c.cases).padStart(6)} ${String(c.agree).padStart(6)} ${
      String(c.disagree).padStart(9)
    } ${String(c.intended).padStart(9)} ${String(c.skipped).padStart(8)}`,
  );
  for (const [id, n] of c.reasons) console.log(`  intended ${id}: ${n}`);
}
Deno.exit(results.some(([, c]) => c.disagree > 0) ? 1 : 0);
