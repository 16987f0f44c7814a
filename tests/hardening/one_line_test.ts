import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { diagnosticLine, MAX_MESSAGE_CHARS, oneLine } from "../../lib/base/errors.ts";
import { runCli, tempDir } from "../_cli.ts";

Deno.test("diagnosticLine() escapes every line break and control character, redacts, clips", () => {
  const cases: [string, string][] = [
    ["open a\nerror: fake", "open a\\nerror: fake"],
    ["a\r\nb\rc", "a\\r\\nb\\rc"],
    ["tab\there", "tab\\there"],
    ["esc \x1b[31mred", "esc \\x1b[31mred"],
    ["nul\0 del\x7f nel\u0085", "nul\\x00 del\\x7f nel\\x85"],
    ["ls\u2028ps\u2029", "ls\\u2028ps\\u2029"],
    ["trailing newline\n", "trailing newline"],
    ["trailing CRLFs\r\n\r\n", "trailing CRLFs"],
    ["token abcdef.0123456789abcdef", "token abcdef.<value withheld>"],
    // a secret split from its ID by a line break is still withheld
    ["x\nabcdef.0123456789abcdef", "x\\nabcdef.<value withheld>"],
    ["plain — ünïcode stays", "plain — ünïcode stays"],
  ];
  for (const [input, want] of cases) {
    assert.equal(diagnosticLine(input), want, JSON.stringify(input));
  }
  const long = diagnosticLine("\n".repeat(10_000) + "x");
  assert.ok(!long.includes("\n"));
  assert.equal(long, `${"\\n".repeat(1000)}… (${20_001 - MAX_MESSAGE_CHARS} more chars)`);
  assert.equal(oneLine(new Error("a\nb")), "a\\nb");
  const t0 = performance.now();
  diagnosticLine("\r\n \t".repeat(500_000));
  assert.ok(performance.now() - t0 < 2000);
});

Deno.test("CLI a file name holding a line break stays on one stderr line per problem", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const evil = path.join(dir, "a\nerror: fake");
    fs.writeFileSync(evil, "not a certificate, not YAML: [\n");
    const missing = path.join(dir, "gone\r\nerror: fake");
    const cases: [string[], number][] = [
      [["ca", "hash", evil], 1],
      [["ca", "hash", missing], 1],
      [["cert", "inspect", evil], 1],
      [["cert", "verify", evil, "--ca", evil], 1],
      [["token", "list", evil], 1],
      [["token", "list", missing], 1],
      [["token", "check", "abcdef.0123456789abcdef", "--secrets", evil], 1],
      [[
        "cluster-info",
        "verify",
        evil,
        "--token",
        "abcdef.0123456789abcdef",
        "--unsafe-skip-ca-verification",
      ], 1],
      [["csr", "inspect", evil], 1],
      [
        [
          "kubeconfig",
          "bootstrap",
          "--cluster-info",
          evil,
          "--token",
          "abcdef.0123456789abcdef",
          "--unsafe-skip-ca-verification",
        ],
        1,
      ],
    ];
    for (const [args, problems] of cases) {
      const r = await runCli(args);
      const what = JSON.stringify(args.map((a) => a.replace(dir, "<dir>")));
      assert.notEqual(r.code, 0, what);
      const lines = r.stderr.split("\n");
      assert.equal(lines.pop(), "", `${what}: stderr ends with a newline`);
      assert.equal(lines.length, problems, `${what}: ${r.stderr}`);
      for (const line of lines) {
        assert.ok(!line.startsWith("error: fake"), `${what}: ${r.stderr}`);
        assert.ok(!line.includes("\r"), `${what}: ${JSON.stringify(r.stderr)}`);
      }
      assert.ok(
        r.stderr.includes("\\nerror: fake"),
        `${what}: the name is shown, escaped: ${r.stderr}`,
      );
    }
  } finally {
    cleanup();
  }
});

Deno.test("CLI cluster-info sign reports each progress line as one line", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const evil = path.join(dir, "secrets\nerror: fake.yaml");
    fs.writeFileSync(
      evil,
      `apiVersion: v1
kind: Secret
metadata: {name: "bootstrap-token-abcdef\\nerror: fake", namespace: kube-system}
type: bootstrap.kubernetes.io/token
stringData: {token-id: abcdef, token-secret: 0123456789abcdef, usage-bootstrap-signing: "true"}
`,
    );
    const info = path.join(dir, "cluster-info.yaml");
    const created = await runCli([
      "cluster-info",
      "create",
      "--server",
      "https://10.0.0.1:6443",
      "--ca",
      "examples/pki/ca.crt",
    ]);
    assert.equal(created.code, 0, created.stderr);
    fs.writeFileSync(info, created.stdout);
    const r = await runCli(["cluster-info", "sign", info, "--secrets", evil]);
    assert.ok(r.stderr.includes("\\nerror: fake"), r.stderr);
    for (const line of r.stderr.split("\n").slice(0, -1)) {
      assert.match(line, /^(\[bootstrap-signer\]|error:|warning:) /, r.stderr);
    }
  } finally {
    cleanup();
  }
});

Deno.test("main.ts, cli.ts and commands/ write to stderr only through the one-line writer", () => {
  const root = new URL("../../", import.meta.url);
  const files = [
    "main.ts",
    "cli.ts",
    ...fs.readdirSync(new URL("commands/", root)).filter((f) => f.endsWith(".ts")).map((f) =>
      `commands/${f}`
    ),
  ];
  const direct =
    /process\.stderr|Deno\.stderr|deno\.stderr\.write|writeNodeFd\(2\b|writeSync\(2\b|console\.(log|error|warn|info|debug|trace)\b/;
  const code = (text: string) =>
    text.split("\n").map((line, i) => ({ line, n: i + 1 })).filter((l) =>
      !/^\s*(\/\/|\*)/.test(l.line)
    );
  for (const file of files) {
    const text = fs.readFileSync(new URL(file, root), "utf8");
    const hits = code(text).filter((l) => direct.test(l.line));
    if (file === "main.ts") {
      // Exactly one line writer, writeStderrLine: it holds `line + "\n"` and flushStderr writes
      // what is held (lines only, in batches). The writer is handed only to run() and
      // reportInternalError as io.stderr: every line it gets was rendered by cli.ts. The one
      // other write is writeProgress's: a status redrawn in place (\r, erase), no newline,
      // which cli.ts hands to commands only when stderr is a terminal. Both write through
      // writeStderr, the one place that touches the stream (Deno's under deno run, else file
      // descriptor 2 through writeNodeFd, which writes only the descriptor it is given).
      assert.equal(hits.length, 2, JSON.stringify(hits));
      assert.match(hits[0]!.line, /^\s*writeNodeFd\(2, text\);$/);
      assert.match(
        hits[1]!.line,
        /^\s*for \(let off = 0; off < data\.length;\) off \+= deno\.stderr\.writeSync\(data\.subarray\(off\)\);$/,
      );
      const writer = /function writeStderr\(text: string\): void \{\n([\s\S]*?)\n\}\n/.exec(text);
      assert.ok(writer, "writeStderr");
      for (const h of hits) {
        assert.ok(writer[1]!.includes(h.line.trim()), `writeStderr's: ${h.line}`);
      }
      const calls = code(text).filter((l) => /writeStderr\(/.test(l.line));
      assert.deepEqual(calls.map((c) => c.line.trim()), [
        "writeStderr(text);",
        "writeStderr(`\\r${status}\\x1b[K`);",
        "function writeStderr(text: string): void {",
      ]);
      const flush = /function flushStderr\(\): void \{\n([^}]*)\}/.exec(text);
      assert.ok(flush && flush[1]!.includes("writeStderr(text);"), "the write is flushStderr's");
      assert.match(flush![1]!, /const text = heldStderr;/);
      const progress = /function writeProgress\(status: string\): void \{\n([\s\S]*?)\n\}\n/.exec(
        text,
      );
      assert.ok(progress && progress[1]!.includes("writeStderr(`\\r${status}\\x1b[K`);"));
      // What is held: only writeStderrLine's lines, emptied only by flushStderr.
      const held = code(text).filter((l) => /heldStderr\s*\+?=[^=]/.test(l.line));
      assert.deepEqual(held.map((h) => h.line.trim()), [
        'let heldStderr = "";',
        'heldStderr += line + "\\n";',
        'heldStderr = "";',
      ]);
      const fn = /function writeStderrLine\(line: string\): void \{\n([^}]*)\}/.exec(text);
      assert.ok(
        fn && fn[1]!.includes('heldStderr += line + "\\n";'),
        "lines held by writeStderrLine",
      );
      const uses = code(text).filter((l) => /writeStderrLine/.test(l.line));
      assert.deepEqual(
        uses.map((u) => u.line.trim()),
        ["function writeStderrLine(line: string): void {", "stderr: writeStderrLine,"],
      );
      assert.doesNotMatch(text, /\bio\.stderr\(/, "main.ts writes no line of its own");
      continue;
    }
    assert.deepEqual(hits, [], `${file} writes to stderr directly`);
    if (file !== "cli.ts") continue;
    // cli.ts: every line goes to io.stderr through diagnosticLine, and commands get only that.
    const writes = code(text).filter((l) => /io\.stderr\(/.test(l.line));
    assert.ok(writes.length > 0);
    for (const w of writes) assert.match(w.line, /io\.stderr\(diagnosticLine\(/, `cli.ts:${w.n}`);
    assert.match(text, /const err = \(line: string\) => io\.stderr\(diagnosticLine\(line\)\);/);
    assert.match(text, /stderr: err,/);
    assert.doesNotMatch(text, /stderr: io\.stderr/);
  }
});
