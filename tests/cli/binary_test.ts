/**
 * The built binary on its own: copied alone into an empty directory and run
 * with a bare PATH (no deno, no node_modules next to it), it must still run
 * every kind of command. Runs only when `JOINKIT_BIN` names the binary
 * (`JOINKIT_BIN=dist/joinkit deno test -A tests/`, as CI does after the build).
 *
 * This test spawns the copied binary directly rather than through
 * `tests/_cli.ts`, whose runner inherits the caller's whole environment.
 *
 * @module
 */

import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import process from "node:process";
import { repoPath, tempDir } from "../_cli.ts";

const BIN = process.env.JOINKIT_BIN;
const ignore = !BIN;

/** A copy of the binary alone in a fresh directory, and a runner for it. */
function isolated() {
  const { dir, cleanup } = tempDir("joinkit-bin-");
  const bin = path.join(dir, "joinkit");
  fs.copyFileSync(path.resolve(repoPath(), BIN!), bin);
  fs.chmodSync(bin, 0o755);
  const run = (args: string[], stdin?: string) => {
    const r = spawnSync(bin, args, {
      cwd: dir,
      env: { PATH: "/usr/bin:/bin" },
      input: stdin ?? "",
      encoding: "utf8",
      timeout: 60_000,
    });
    return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
  };
  return { dir, bin, run, cleanup };
}

/** kubeadm's documented pipeline for the CA public-key pin. */
function opensslPin(certFile: string): string {
  const pub = execFileSync("openssl", ["x509", "-pubkey", "-noout", "-in", certFile]);
  const der = execFileSync("openssl", ["pkey", "-pubin", "-outform", "der"], { input: pub });
  const hex = execFileSync("openssl", ["dgst", "-sha256", "-hex"], { input: der }).toString();
  return "sha256:" + hex.trim().replace(/^.* /, "");
}

Deno.test({
  name: "CLI binary runs alone: --version, help and token generate",
  ignore,
  fn() {
    const t = isolated();
    try {
      assert.deepEqual(fs.readdirSync(t.dir), ["joinkit"]);
      const v = t.run(["--version"]);
      assert.equal(v.code, 0, v.stderr);
      assert.match(v.stdout, /^joinkit \S+\n$/);
      assert.equal(v.stderr, "");
      const g = t.run(["token", "generate", "--count", "3"]);
      assert.equal(g.code, 0, g.stderr);
      assert.match(g.stdout, /^([a-z0-9]{6}\.[a-z0-9]{16}\n){3}$/);
      assert.equal(g.stderr, "");
      const bad = t.run(["token", "generate", "--bogus"]);
      assert.equal(bad.code, 2);
      assert.equal(bad.stdout, "");
      assert.match(bad.stderr, /^error: unknown flag --bogus/);
    } finally {
      t.cleanup();
    }
  },
});

Deno.test({
  name: "CLI binary draws fresh randomness in every run (nothing random frozen into the binary)",
  ignore,
  fn() {
    const t = isolated();
    try {
      // A randomness pool filled at build time would repeat its bytes in every run.
      const draws = [0, 1, 2].map(() => {
        const g = t.run(["token", "generate", "--count", "20"]);
        assert.equal(g.code, 0, g.stderr);
        return g.stdout.trim().split("\n");
      });
      const all = draws.flat();
      assert.equal(all.length, 60);
      assert.equal(new Set(all).size, 60, "a token repeated across runs");
      assert.equal(new Set(all.map((x) => x.slice(0, 6))).size, 60, "a token id repeated");
    } finally {
      t.cleanup();
    }
  },
});

Deno.test({
  name: "CLI binary compiles each chunk a command loads from its V8 code cache, none refused",
  ignore,
  fn() {
    const t = isolated();
    try {
      fs.writeFileSync(
        path.join(t.dir, "ca.crt"),
        fs.readFileSync(repoPath("examples/demo/ca.crt")),
      );
      const runs = [
        ["--version"],
        ["token", "generate"],
        ["ca", "hash", "ca.crt"],
        [
          "join-command",
          "--server",
          "10.0.0.1:6443",
          "--token",
          "abcdef.0123456789abcdef",
          "--ca",
          "ca.crt",
        ],
        ["rbac"],
        ["doctor", "--help"],
      ];
      const loaded: number[] = [];
      for (const args of runs) {
        const r = spawnSync(t.bin, args, {
          cwd: t.dir,
          env: { PATH: "/usr/bin:/bin", JOINKIT_CODE_CACHE_REPORT: "1" },
          encoding: "utf8",
        });
        assert.equal(r.status, 0, `${args.join(" ")}: ${r.stderr}`);
        const m = /^code cache: (\d+) chunks loaded, (\d+) from their cache, (\d+) refused/m.exec(
          r.stderr,
        );
        assert.ok(m, `${args.join(" ")}: ${r.stderr}`);
        assert.equal(m[3], "0", `${args.join(" ")}: ${r.stderr}`);
        assert.equal(m[2], m[1], `${args.join(" ")}: ${r.stderr}`);
        loaded.push(Number(m[1]));
        // Without the variable the binary says nothing of it.
        const quiet = spawnSync(t.bin, args, {
          cwd: t.dir,
          env: { PATH: "/usr/bin:/bin" },
          encoding: "utf8",
        });
        assert.equal(quiet.stderr, "", args.join(" "));
      }
      // A command loads its own chunks, not every command's: --version the fewest.
      assert.ok(loaded[0]! < loaded[2]! && loaded[0]! < loaded[4]!, loaded.join(" "));
    } finally {
      t.cleanup();
    }
  },
});

Deno.test({
  name: "CLI binary runs alone: ca create, ca hash (X.509) and init (YAML)",
  ignore,
  fn() {
    const t = isolated();
    try {
      const c = t.run(["ca", "create", "--out-dir", "pki"]);
      assert.equal(c.code, 0, c.stderr);
      const crt = path.join(t.dir, "pki", "ca.crt");
      assert.ok(fs.existsSync(crt) && fs.existsSync(path.join(t.dir, "pki", "ca.key")));
      execFileSync("openssl", ["x509", "-noout", "-in", crt]);

      const h = t.run(["ca", "hash", "pki/ca.crt"]);
      assert.equal(h.code, 0, h.stderr);
      assert.equal(h.stdout.trim(), opensslPin(crt));

      const i = t.run([
        "init",
        "--ca",
        "pki/ca.crt",
        "--server",
        "https://10.0.0.1:6443",
        "--token",
        "abcdef.0123456789abcdef",
      ]);
      assert.equal(i.code, 0, i.stderr);
      assert.match(i.stdout, /kind: Secret/);
      assert.match(i.stdout, /bootstrap-token-abcdef/);
      assert.match(i.stdout, /cluster-info/);
      assert.ok(!i.stdout.includes("Module not found"));
    } finally {
      t.cleanup();
    }
  },
});

Deno.test({
  name: "CLI binary prints what deno run prints, with the same exit codes",
  ignore,
  fn() {
    const t = isolated();
    try {
      const made = t.run(["ca", "create", "--out-dir", "pki", "--key-type", "ecdsa-p256"]);
      assert.equal(made.code, 0, made.stderr);
      const now = ["--now", "2026-01-02T03:04:05Z"];
      const token = "abcdef.0123456789abcdef";
      const cases: string[][] = [
        ["--version"],
        ["--help"],
        [],
        ["nope"],
        ["token", "generate", "--bogus"],
        ["token", "generate", "--help"],
        ["ca", "hash", "pki/ca.crt"],
        ["ca", "hash", "missing.crt"],
        ["rbac"],
        ["token", "create", token, ...now],
        [
          "init",
          "--server",
          "https://10.0.0.1:6443",
          "--ca",
          "pki/ca.crt",
          "--token",
          token,
          ...now,
        ],
      ];
      for (const args of cases) {
        const bin = t.run(args);
        const deno = spawnSync(
          process.execPath,
          ["run", "-A", "--quiet", repoPath("main.ts"), ...args],
          { cwd: t.dir, env: { PATH: "/usr/bin:/bin", NO_COLOR: "1" }, encoding: "utf8" },
        );
        const what = `joinkit ${args.join(" ")}`;
        assert.equal(bin.code, deno.status, `${what}: exit code`);
        assert.equal(bin.stdout, deno.stdout, `${what}: stdout`);
        assert.equal(bin.stderr, deno.stderr, `${what}: stderr`);
      }
    } finally {
      t.cleanup();
    }
  },
});
