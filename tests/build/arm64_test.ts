/**
 * The linux-arm64 binary (dist/joinkit-linux-arm64, built beside dist/joinkit
 * by scripts/build.ts) run under qemu-aarch64-static with Debian's arm64
 * cross libraries: it starts, reports its runtime, and gives the x64 build's
 * answers and exit codes. Skipped, saying why, where the binary is not built
 * or qemu is not installed. Named `CLI …` so CI's binary stage runs it.
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import process from "node:process";
import { arm64Runner, runtimePin } from "../../scripts/build.ts";
import { repoPath, tempDir } from "../_cli.ts";

const dist = path.dirname(path.resolve(repoPath("."), process.env.JOINKIT_BIN ?? "dist/joinkit"));
const BIN = path.join(dist, "joinkit-linux-arm64");
const runner = arm64Runner();
const why = !fs.existsSync(BIN)
  ? `no ${path.relative(repoPath("."), BIN)}: run npm run build`
  : runner === undefined
  ? "qemu-aarch64-static or the arm64 cross libraries (libc6-arm64-cross, libstdc++6-arm64-cross) not installed"
  : undefined;

function arm(args: string[], cwd?: string, env: Record<string, string> = {}) {
  return spawnSync(runner![0] ?? BIN, [
    ...runner!.slice(1),
    ...(runner!.length ? [BIN] : []),
    ...args,
  ], {
    encoding: "utf8",
    cwd,
    env: { PATH: "/usr/bin:/bin", ...env },
    timeout: 120_000,
  });
}

Deno.test({
  name: `CLI arm64 binary runs under qemu: version, token generate, ca hash, ca create, exit codes${
    why ? ` (skipped: ${why})` : ""
  }`,
  ignore: why !== undefined,
  fn() {
    const file = spawnSync("file", ["-b", BIN], { encoding: "utf8" }).stdout;
    if (file) assert.match(file, /ARM aarch64/);

    const v = arm(["version", "-o", "json"]);
    assert.equal(v.status, 0, v.stderr);
    const info = JSON.parse(v.stdout);
    assert.deepEqual(info.runtime, {
      name: "node",
      platform: "linux/arm64",
      version: runtimePin("arm64").version,
    });

    const t = arm(["token", "generate", "--count", "2"]);
    assert.equal(t.status, 0, t.stderr);
    assert.match(t.stdout, /^([a-z0-9]{6}\.[a-z0-9]{16}\n){2}$/);

    // The pin of the example CA, as openssl computes it (tests/cli/ca_hash_test.ts has the vector).
    const h = arm(["ca", "hash", repoPath("examples/demo/ca.crt")]);
    assert.equal(h.status, 0, h.stderr);
    const der = spawnSync("openssl", [
      "x509",
      "-in",
      repoPath("examples/demo/ca.crt"),
      "-pubkey",
      "-noout",
    ], {
      encoding: "utf8",
    });
    if (der.status === 0) {
      const spki = spawnSync("openssl", ["pkey", "-pubin", "-outform", "DER"], {
        input: der.stdout,
      });
      const dgst = spawnSync("openssl", ["dgst", "-sha256", "-hex"], {
        input: spki.stdout,
        encoding: "utf8",
      });
      assert.equal(h.stdout, `sha256:${dgst.stdout.trim().replace(/^.* /, "")}\n`);
    }

    const { dir, cleanup } = tempDir();
    try {
      const c = arm(["ca", "create", "--key-type", "ecdsa-p256", "--out-dir", "pki"], dir);
      assert.equal(c.status, 0, c.stderr);
      assert.equal(fs.statSync(path.join(dir, "pki/ca.key")).mode & 0o777, 0o600);
      const check = spawnSync("openssl", ["verify", "-CAfile", "pki/ca.crt", "pki/ca.crt"], {
        cwd: dir,
        encoding: "utf8",
      });
      if (check.status !== null) assert.equal(check.stdout, "pki/ca.crt: OK\n", check.stderr);
    } finally {
      cleanup();
    }

    // The code caches were made by the arm64 runtime itself (under qemu): V8 takes every one.
    const cached = arm(["ca", "hash", repoPath("examples/demo/ca.crt")], undefined, {
      JOINKIT_CODE_CACHE_REPORT: "1",
    });
    assert.equal(cached.status, 0, cached.stderr);
    const report = /^code cache: (\d+) chunks loaded, (\d+) from their cache, 0 refused\n$/.exec(
      cached.stderr,
    );
    assert.ok(report, cached.stderr);
    assert.equal(report[2], report[1], cached.stderr);

    const bad = arm(["token", "generate", "--count", "0"]);
    assert.equal(bad.status, 2);
    assert.equal(bad.stdout, "");
    assert.equal(bad.stderr.trim().split("\n").length, 1);
  },
});

Deno.test({
  name: `CLI arm64 binary: dist/SHA256SUMS checks both binaries${why ? ` (skipped: ${why})` : ""}`,
  ignore: why !== undefined || !fs.existsSync(path.join(dist, "SHA256SUMS")),
  fn() {
    const r = spawnSync("sha256sum", ["-c", "SHA256SUMS"], { cwd: dist, encoding: "utf8" });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^joinkit: OK\njoinkit-linux-arm64: OK\n$/);
  },
});
