/**
 * Whole-command fuzzing, in process (no spawn): each command reads a mutated
 * input file or flag value and must end with exit 0–3, a JoinkitError for
 * failures, never another exception, and never a token secret or private key
 * on stderr (nor a private key on stdout). See tests/_fuzz.ts.
 */

import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";
import {
  FIXTURE_NOW,
  FIXTURE_SERVER,
  FIXTURE_TOKEN,
  type Fixtures,
  fuzz,
  JoinkitError,
  leak,
  makeFixtures,
  runInProcess,
  secretNeedles,
} from "../_fuzz.ts";
import { tempDir } from "../_cli.ts";

const { dir, cleanup } = tempDir("joinkit-fuzzcmd-");
const F: Fixtures = await makeFixtures(dir);
const NEEDLES = secretNeedles(F);
const KEY_NEEDLES = NEEDLES.slice(1);
const IN = path.join(dir, "fuzz-input");
const NOW = ["--now", FIXTURE_NOW];
const te = new TextEncoder();

globalThis.addEventListener("unload", cleanup);

async function runCommand(argv: string[]): Promise<unknown> {
  const r = await runInProcess(argv);
  if (r.thrown !== undefined && !(r.thrown instanceof JoinkitError)) throw r.thrown;
  const where = leak(r.stderr, NEEDLES);
  if (where !== undefined) {
    throw new Error(`secret on stderr (${where.slice(0, 8)}…): ${r.stderr.slice(0, 300)}`);
  }
  const out = leak(r.stdout, KEY_NEEDLES);
  if (out !== undefined) throw new Error(`private key material on stdout`);
  if (![0, 1, 2, 3].includes(r.code)) throw new Error(`exit code ${r.code}`);
  if (r.thrown) throw r.thrown;
  return r;
}

/** A target whose mutated input is the file at IN. */
function fileTarget(name: string, samples: string[], argv: string[], iterations: number) {
  return fuzz<Uint8Array>({
    name,
    samples: samples.map((
      s,
    ) => (s.startsWith("@") ? new Uint8Array(fs.readFileSync(s.slice(1))) : te.encode(s))),
    iterations,
    maxInput: 16_384,
    // Messages may echo input; main.ts cuts every stderr line (oneLine/clipLine).
    maxMessage: Infinity,
    run: (bytes) => {
      fs.writeFileSync(IN, bytes);
      return runCommand(argv);
    },
  });
}

/** A target whose mutated input is one flag value. */
function flagTarget(
  name: string,
  samples: string[],
  argv: (v: string) => string[],
  iterations: number,
) {
  return fuzz<string>({
    name,
    samples,
    iterations,
    maxInput: 4096,
    maxMessage: Infinity,
    // A NUL cannot reach argv; the rest of the mutations can.
    run: (v) => runCommand(argv(v.replace(/\0/g, ""))),
  });
}

const T = F.text;
const emptyList = JSON.stringify({ kind: "List", apiVersion: "v1", items: [] });

Deno.test("CLI token list / token check fuzz (in process): Secret manifests", async () => {
  const json =
    (await runInProcess(["token", "create", FIXTURE_TOKEN, "-o", "json", ...NOW])).stdout;
  await fileTarget("token list", [T["secrets.yaml"]!, json, emptyList], [
    "token",
    "list",
    IN,
    ...NOW,
  ], 150);
  await fileTarget("token check", [T["secrets.yaml"]!, json], [
    "token",
    "check",
    FIXTURE_TOKEN,
    "--secrets",
    IN,
    ...NOW,
  ], 120);
});

Deno.test("CLI ca hash / ca pin-check / cert inspect fuzz (in process): certificates", async () => {
  const der = Buffer.from(
    T["ca.crt"]!.split("\n").filter((l) => l && !l.startsWith("-")).join(""),
    "base64",
  );
  fs.writeFileSync(path.join(dir, "ca.der"), der);
  const samples = [
    T["ca.crt"]!,
    "@" + path.join(dir, "ca.der"),
    T["kubeconfig"]!,
    T["cluster-info.yaml"]!,
  ];
  await fileTarget("ca hash", samples, ["ca", "hash", IN], 150);
  await fileTarget("ca pin-check", samples, ["ca", "pin-check", IN, "--ca-cert-hash", F.pin], 90);
  await fileTarget("cert inspect", [T["ca.crt"]!, T["node.crt"]! + T["ca.crt"]!], [
    "cert",
    "inspect",
    IN,
    ...NOW,
  ], 120);
});

Deno.test("CLI cluster-info verify / sign / kubeconfig bootstrap fuzz (in process): cluster-info", async () => {
  const ci = [T["cluster-info.yaml"]!];
  await fileTarget("cluster-info verify", ci, [
    "cluster-info",
    "verify",
    IN,
    "--token",
    FIXTURE_TOKEN,
    "--ca-cert-hash",
    F.pin,
  ], 150);
  await fileTarget("cluster-info sign (cluster-info)", ci, [
    "cluster-info",
    "sign",
    IN,
    "--secrets",
    F.secrets,
    ...NOW,
  ], 90);
  await fileTarget("cluster-info sign (secrets)", [T["secrets.yaml"]!], [
    "cluster-info",
    "sign",
    F.clusterInfo,
    "--secrets",
    IN,
    ...NOW,
  ], 90);
  await fileTarget(
    "kubeconfig bootstrap --cluster-info",
    ci,
    [
      "kubeconfig",
      "bootstrap",
      "--cluster-info",
      IN,
      "--token",
      FIXTURE_TOKEN,
      "--ca-cert-hash",
      F.pin,
    ],
    90,
  );
});

Deno.test("CLI csr inspect / csr sign / cert verify fuzz (in process): CSRs, CA and keys", async () => {
  await fileTarget(
    "csr inspect",
    [T["node.csr"]!, T["csr.yaml"]!],
    ["csr", "inspect", IN, ...NOW],
    150,
  );
  await fileTarget("csr sign (csr)", [T["node.csr"]!, T["csr.yaml"]!], [
    "csr",
    "sign",
    IN,
    "--ca",
    F.caCrt,
    "--ca-key",
    F.caKey,
    ...NOW,
  ], 120);
  await fileTarget("csr sign (ca key)", [T["ca.key"]!], [
    "csr",
    "sign",
    F.nodeCsr,
    "--ca",
    F.caCrt,
    "--ca-key",
    IN,
    ...NOW,
  ], 120);
  await fileTarget("csr sign (ca cert)", [T["ca.crt"]!], [
    "csr",
    "sign",
    F.nodeCsr,
    "--ca",
    IN,
    "--ca-key",
    F.caKey,
    ...NOW,
  ], 90);
  await fileTarget("cert verify (cert)", [T["node.crt"]!], [
    "cert",
    "verify",
    IN,
    "--ca",
    F.caCrt,
    "--key",
    F.nodeKey,
    "--node",
    "worker-1",
    ...NOW,
  ], 120);
  await fileTarget("cert verify (key)", [T["node.key"]!], [
    "cert",
    "verify",
    F.nodeCrt,
    "--ca",
    F.caCrt,
    "--key",
    IN,
    ...NOW,
  ], 90);
});

Deno.test("CLI flag values fuzz (in process): --server, --ttl, --token, --duration, --now, pins", async () => {
  await flagTarget(
    "init --server",
    [FIXTURE_SERVER, "https://[fd00::1]:6443", "https://cp.example.com:443"],
    (v) => ["init", "--server", v, "--ca", F.caCrt, "--token", FIXTURE_TOKEN, ...NOW],
    90,
  );
  await flagTarget(
    "join-command --server/--certificate-key",
    ["10.0.0.1:6443", "[fd00::1]:6443", "https://cp:6443"],
    (v) => ["join-command", "--server", v, "--token", FIXTURE_TOKEN, "--ca", F.caCrt],
    120,
  );
  await flagTarget(
    "token create --ttl/--groups/--description",
    ["24h", "0", "1h30m"],
    (v) => ["token", "create", FIXTURE_TOKEN, "--ttl", v, "--description", v, ...NOW],
    120,
  );
  await flagTarget(
    "token create TOKEN",
    [FIXTURE_TOKEN, "zzzzzz.zzzzzzzzzzzzzzzz"],
    (v) => ["token", "create", v, "--groups", "system:bootstrappers:" + v.slice(0, 6), ...NOW],
    120,
  );
  await flagTarget(
    "csr sign --duration",
    ["8760h", "10m", "1h"],
    (
      v,
    ) => ["csr", "sign", F.nodeCsr, "--ca", F.caCrt, "--ca-key", F.caKey, "--duration", v, ...NOW],
    60,
  );
  await flagTarget(
    "cert verify --at / --now",
    [FIXTURE_NOW, "2030-01-01T00:00:00+01:00"],
    (v) => ["cert", "verify", F.nodeCrt, "--ca", F.caCrt, "--at", v, "--now", v],
    90,
  );
  await flagTarget(
    "cluster-info verify --token",
    [FIXTURE_TOKEN],
    (v) => ["cluster-info", "verify", F.clusterInfo, "--token", v, "--ca-cert-hash", F.pin],
    90,
  );
  await flagTarget(
    "cluster-info verify --ca-cert-hash",
    [F.pin, F.pin.toUpperCase()],
    (v) => ["cluster-info", "verify", F.clusterInfo, "--token", FIXTURE_TOKEN, "--ca-cert-hash", v],
    90,
  );
});

Deno.test("CLI argv fuzz (in process): random flag sets for every command", async () => {
  const names = [
    "token generate",
    "token create",
    "token list",
    "token check",
    "token auth-file",
    "ca create",
    "ca hash",
    "ca pin-check",
    "cluster-info create",
    "cluster-info sign",
    "cluster-info verify",
    "kubeconfig bootstrap",
    "join-command",
    "rbac",
    "init",
    "csr create",
    "csr inspect",
    "csr sign",
    "cert verify",
    "cert inspect",
  ]; // deno-fmt-ignore
  // A scratch copy: writes (--out, --out-dir, --force) land here, never in the shared fixtures.
  const scratch = fs.mkdtempSync(path.join(path.dirname(dir), "joinkit-argv-"));
  fs.cpSync(F.dir, scratch, { recursive: true });
  const file = (n: string) => path.join(scratch, n);
  const values = [
    "",
    "-",
    "--",
    "0",
    "-1",
    "1",
    "100001",
    "99999999999999999999",
    "24h",
    "-1h",
    "1e3",
    "yaml",
    "json",
    "text",
    "pem",
    FIXTURE_TOKEN,
    FIXTURE_TOKEN.toUpperCase(),
    F.pin,
    FIXTURE_SERVER,
    "10.0.0.1:6443",
    "http://x",
    "system:bootstrappers:x",
    "worker-1",
    "Bad_Name",
    "ecdsa-p256",
    "rsa-1024",
    FIXTURE_NOW,
    "x".repeat(5000),
    "\u202e\ud800",
    file("ca.crt"),
    file("ca.key"),
    file("secrets.yaml"),
    file("cluster-info.yaml"),
    file("node.csr"),
    file("csr.yaml"),
    file("node.crt"),
    file("node.key"),
    file("kubeconfig"),
    file("out"),
    scratch,
    "/dev/null",
    "/nonexistent/x",
  ]; // deno-fmt-ignore
  const commands = await Promise.all(names.map(async (n) => {
    const mod = await import(`../../commands/${n.replace(/[ -]/g, "_")}.ts`);
    return { words: n.split(" "), options: Object.keys(mod.command.options) as string[] };
  }));
  const samples = commands.map((c) =>
    JSON.stringify({ words: c.words, options: c.options, argv: [] as string[] })
  );
  await fuzz<string>({
    name: "argv",
    samples,
    iterations: 400,
    maxMessage: Infinity,
    mutate: (rng, sample) => {
      const { words, options } = JSON.parse(sample) as { words: string[]; options: string[] };
      const argv = [...words];
      const n = rng.int(6);
      for (let i = 0; i < n; i++) {
        const r = rng.float();
        if (r < 0.7 && options.length) {
          const o = rng.pick(options);
          if (rng.chance(0.3)) argv.push(`--${o}=${rng.pick(values)}`);
          else argv.push(`--${o}`, rng.pick(values));
        } else if (r < 0.85) argv.push(rng.pick(values));
        else argv.push(rng.pick(["--force", "--help", "--now", "-o", "--bogus", "-x"]));
      }
      return {
        input: JSON.stringify({ words, options, argv }),
        how: argv.slice(words.length).join(" ").slice(0, 200),
      };
    },
    run: (s) => {
      const { argv } = JSON.parse(s) as { argv: string[] };
      return argv.length ? runCommand(insideScratch(argv)) : undefined;
    },
  });
  fs.rmSync(scratch, { recursive: true, force: true });

  /** Output paths the fuzzer picked (`--out-dir worker-1`) go under scratch, never the repo. */
  function insideScratch(argv: string[]): string[] {
    const where = (v: string) => (path.isAbsolute(v) ? v : path.join(scratch, v));
    return argv.map((a, i) => {
      const m = /^(--out(?:-dir)?)=(.*)$/s.exec(a);
      if (m) return `${m[1]}=${where(m[2]!)}`;
      return i > 0 && /^--out(-dir)?$/.test(argv[i - 1]!) ? where(a) : a;
    });
  }
});

Deno.test("CLI output integrity fuzz (in process): hostile flag values cannot inject YAML objects", async () => {
  const { parseManifests } = await import("../../lib/k8s/manifest.ts");
  const evil = "x\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: evil}\n# ";
  await fuzz<string>({
    name: "yaml-injection",
    samples: [
      "a description",
      evil,
      "'quoted' \"double\" \\ back",
      "key: value",
      "- item",
      "&a *a !!binary",
    ],
    iterations: 300,
    maxInput: 2048,
    maxMessage: Infinity,
    run: async (v) => {
      const d = v.replace(/\0/g, "");
      const r = await runInProcess([
        "token",
        "create",
        FIXTURE_TOKEN,
        "--string-data",
        `--description=${d}`,
        ...NOW,
      ]);
      if (r.thrown !== undefined) throw r.thrown;
      const objs = parseManifests(r.stdout, "stdout");
      if (objs.length !== 1) throw new Error(`${objs.length} objects from one token`);
      const got = (objs[0]!.stringData as Record<string, string>).description;
      if ((got ?? "") !== d) throw new Error(`description changed: ${JSON.stringify(got)}`);
      return objs;
    },
  });
});
