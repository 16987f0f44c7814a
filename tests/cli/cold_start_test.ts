/**
 * Cold start (issue 13): what keeps `--version`, `token generate`, `ca hash` and
 * `join-command` near a hello-world. Each check names the cost it guards.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { type Io, run } from "../../cli.ts";
import { repoPath, staticGraph, tempDir } from "../_cli.ts";

// ~140 ms of module loading under deno run when the certificate parser reached them.
const LIBRARIES = /peculiar|asn1|reflect-metadata|\/yaml\/|x509\.ts$/;
// Under Deno each pulls a dozen node-compat modules (net: dns, streams; tty: net, os).
const NODE_EXTRAS = /^node:(net|tty)$/;

Deno.test("parseCertificate() (cert_info.ts, which ca hash and join-command run on every CA) loads no X.509/ASN.1 library", () => {
  const graph = staticGraph("lib/pki/cert_info.ts");
  assert.ok(graph.some((s) => s.endsWith("/lib/pki/pkix_key.ts")), graph.join("\n"));
  assert.ok(graph.some((s) => s.endsWith("/lib/pki/sigalg.ts")), graph.join("\n"));
  assert.deepEqual(graph.filter((s) => LIBRARIES.test(s)), []);
  assert.deepEqual(graph.filter((s) => NODE_EXTRAS.test(s)), []);
});

Deno.test("main.ts and cli.ts import neither node:tty nor node:net at start-up", () => {
  const graph = staticGraph("main.ts");
  assert.ok(graph.some((s) => s.endsWith("/cli.ts")));
  assert.deepEqual(graph.filter((s) => NODE_EXTRAS.test(s)), []);
});

Deno.test("staticGraph() finds the library and node:net where they are imported statically", () => {
  // The checks above can fail: the same walk sees them from a module that imports them.
  assert.ok(
    staticGraph("tests/_x509.ts").some((s) => LIBRARIES.test(s) && s.includes("peculiar")),
  );
  assert.ok(staticGraph("commands/join_config.ts").some((s) => NODE_EXTRAS.test(s)));
});

Deno.test("deno.json turns on lazy-dynamic-imports: deno run reads only the command that runs", () => {
  // Without it deno run builds the graph of every import() the command table names
  // (~170 modules) before --version prints anything.
  const config = JSON.parse(fs.readFileSync(repoPath("deno.json"), "utf8")) as {
    unstable?: string[];
  };
  assert.ok(config.unstable?.includes("lazy-dynamic-imports"), JSON.stringify(config.unstable));
});

/** An Io whose isTTY getters count how often each stream is asked about. */
function countingIo(terminal: boolean, drawn: string[]) {
  const asked = { stdin: 0, stdout: 0, stderr: 0 };
  let stdout = "";
  const io: Io = {
    stdout: (t) => void (stdout += t),
    stderr: () => {},
    progress: (s) => void drawn.push(s),
    isTTY: {
      get stdin() {
        asked.stdin++;
        return terminal;
      },
      get stdout() {
        asked.stdout++;
        return terminal;
      },
      get stderr() {
        asked.stderr++;
        return terminal;
      },
    },
  };
  return { io, asked, out: () => stdout };
}

Deno.test("run() asks whether a stream is a terminal only when a command reads ctx.tty or ctx.progress", async () => {
  for (const argv of [["--version"], ["token", "generate"], ["ca", "hash", "--help"]]) {
    const { io, asked } = countingIo(true, []);
    assert.equal(await run(argv, io), 0, argv.join(" "));
    assert.deepEqual(asked, { stdin: 0, stdout: 0, stderr: 0 }, argv.join(" "));
  }
  const { dir, cleanup } = tempDir();
  try {
    const secrets = path.join(dir, "secrets.yaml");
    const made = countingIo(false, []);
    assert.equal(await run(["token", "create", "abcdef.0123456789abcdef"], made.io), 0);
    fs.writeFileSync(secrets, made.out());
    // token list reads ctx.progress, which asks about stderr only.
    for (const terminal of [true, false]) {
      const drawn: string[] = [];
      const { io, asked, out } = countingIo(terminal, drawn);
      assert.equal(await run(["token", "list", secrets], io), 0);
      assert.match(out(), /abcdef/);
      assert.equal(asked.stderr, 1, `terminal ${terminal}`);
      assert.deepEqual([asked.stdin, asked.stdout], [0, 0]);
      assert.deepEqual(drawn, [], "a quick run draws nothing either way");
    }
  } finally {
    cleanup();
  }
});
