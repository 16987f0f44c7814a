/**
 * main.ts's stdout writer (Deno's own write under deno run, process.stdout on
 * Node): whatever writes it, every byte arrives once and in order, and a
 * reader that goes away ends the run quietly.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cliCommand, runCli } from "../_cli.ts";

Deno.test("CLI token create writes a long output whole and in order through a pipe", async () => {
  const r = await runCli(["token", "create", "--count", "2000", "--now", "2026-01-01T00:00:00Z"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "");
  const docs = r.stdout.split(/^---$/m);
  assert.equal(docs.length, 2000);
  const ids = r.stdout.match(/^ {2}name: bootstrap-token-[a-z0-9]{6}$/gm) ?? [];
  assert.equal(ids.length, 2000);
  assert.equal(new Set(ids).size, 2000, "no document written twice");
  assert.ok(r.stdout.endsWith("\n"));
});

Deno.test("CLI token create ends quietly with exit 0 when the reader of stdout goes away", async () => {
  const [cmd, ...pre] = cliCommand();
  const child = spawn(cmd!, [...pre, "token", "create", "--count", "20000"], {
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d: Uint8Array) => stderr += new TextDecoder().decode(d));
  // Read one chunk, then close our end: the next write meets a closed pipe (EPIPE).
  child.stdout.once("data", () => child.stdout.destroy());
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  assert.equal(code, 0, stderr);
  assert.equal(stderr, "");
});
