/**
 * Files are safe: every write goes through commands/_io.ts writeFilesAtomic
 * (temporary file in the same directory, flushed, then link or rename);
 * private keys and credential kubeconfigs are 0600 whatever the umask; key
 * directories are created 0700; nothing is overwritten without --force (and
 * --force replaces a symlink rather than writing through it); a run killed
 * with SIGKILL at a random moment leaves each target either old or new and
 * complete, never partial. Temporary files (`.<name>.tmp-<pid>-<random>`,
 * in the target's directory) may remain after SIGKILL: that is documented in
 * docs/hardening.md, and the next run is not disturbed by them.
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import process from "node:process";
import { cliCommand, repoPath, runCli, tempDir } from "../_cli.ts";
import { FIXTURE_NOW, FIXTURE_SERVER, FIXTURE_TOKEN, fuzzSeed, Rng } from "../_fuzz.ts";
import { writeFilesAtomic } from "../../commands/_io.ts";
import { certificatesFromPem } from "../../lib/pki/certsource.ts";
import { importPrivateKeyPem } from "../../lib/pki/keys.ts";

const NOW = ["--now", FIXTURE_NOW];
const mode = (p: string) => fs.statSync(p).mode & 0o777;
const TEMP = /^\.(.+)\.tmp-\d+-[a-z0-9]+$/;

/** Runs the CLI under `umask 000`, so only joinkit's own modes count. */
function runUmask0(args: string[], cwd: string): Promise<{ code: number; stderr: string }> {
  const argv = cliCommand();
  return new Promise((resolve, reject) => {
    const child = spawn("sh", ["-c", 'umask 000; exec "$@"', "sh", ...argv, ...args], {
      cwd,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Uint8Array) => (stderr += new TextDecoder().decode(d)));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stderr }));
  });
}

Deno.test("writeFilesAtomic() is the only way commands and lib write files (source audit)", () => {
  const offenders: string[] = [];
  const write =
    /\b(writeFileSync|writeFile|appendFileSync|appendFile|createWriteStream|renameSync|linkSync|copyFileSync|Deno\.write\w*|Deno\.create|Deno\.open)\s*\(|openSync\([^)]*["'][wa]/;
  for (const dir of ["commands", "lib"]) {
    for (const f of fs.readdirSync(repoPath(dir))) {
      if (!f.endsWith(".ts") || f === "_io.ts") continue;
      const text = fs.readFileSync(repoPath(dir, f), "utf8");
      text.split("\n").forEach((line, i) => {
        if (write.test(line) && !/^\s*(\*|\/\/)/.test(line)) {
          offenders.push(`${dir}/${f}:${i + 1}: ${line.trim()}`);
        }
      });
    }
  }
  assert.deepEqual(offenders, []);
});

Deno.test("writeFilesAtomic() writes all or nothing, in the target's directory, with the asked mode", () => {
  const { dir, cleanup } = tempDir();
  try {
    const a = path.join(dir, "a.key");
    // The second target's directory is missing: the first must not appear either.
    assert.throws(
      () =>
        writeFilesAtomic([{ path: a, data: "A", mode: 0o600 }, {
          path: path.join(dir, "no/b"),
          data: "B",
          mode: 0o644,
        }], false),
      /no: no such file or directory/,
    );
    assert.deepEqual(fs.readdirSync(dir), []);
    // One target exists: nothing is written, the existing one is untouched.
    fs.writeFileSync(path.join(dir, "b"), "old");
    assert.throws(
      () =>
        writeFilesAtomic([{ path: a, data: "A", mode: 0o600 }, {
          path: path.join(dir, "b"),
          data: "B",
          mode: 0o644,
        }], false),
      /b: already exists/,
    );
    assert.deepEqual(fs.readdirSync(dir), ["b"]);
    assert.equal(fs.readFileSync(path.join(dir, "b"), "utf8"), "old");
    // Success: exact modes (fchmod, not the umask), no temporaries left.
    const old = process.umask(0o077);
    try {
      writeFilesAtomic([{ path: a, data: "A", mode: 0o600 }, {
        path: path.join(dir, "c"),
        data: "C",
        mode: 0o644,
      }], false);
    } finally {
      process.umask(old);
    }
    assert.deepEqual(fs.readdirSync(dir).sort(), ["a.key", "b", "c"]);
    assert.equal(mode(a), 0o600);
    assert.equal(mode(path.join(dir, "c")), 0o644);
    // A target that is a directory is refused before anything is written.
    fs.mkdirSync(path.join(dir, "d"));
    assert.throws(
      () => writeFilesAtomic([{ path: path.join(dir, "d"), data: "D", mode: 0o644 }], true),
      /d: is a directory/,
    );
  } finally {
    cleanup();
  }
});

Deno.test("CLI writes keys and credential kubeconfigs 0600 and key directories 0700, even under umask 000", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const runs = await Promise.all([
      runUmask0(["ca", "create", "--out-dir", "pki/ca", "--key-type", "ecdsa-p256", ...NOW], dir),
      runUmask0(["csr", "create", "--node", "worker-1", "--out-dir", "kubelet/pki", ...NOW], dir),
      runUmask0([
        "init",
        "--server",
        FIXTURE_SERVER,
        "--ca",
        repoPath("examples/demo/ca.crt"),
        "--token",
        FIXTURE_TOKEN,
        "--out-dir",
        "init",
        ...NOW,
      ], dir),
      runUmask0([
        "kubeconfig",
        "bootstrap",
        "--server",
        FIXTURE_SERVER,
        "--ca",
        repoPath("examples/demo/ca.crt"),
        "--token",
        FIXTURE_TOKEN,
        "--out",
        "bootstrap-kubelet.conf",
      ], dir),
    ]);
    for (const r of runs) assert.equal(r.code, 0, r.stderr);
    const p = (n: string) => path.join(dir, n);
    assert.equal(mode(p("pki/ca/ca.key")), 0o600);
    assert.equal(mode(p("pki/ca/ca.crt")), 0o644);
    assert.equal(mode(p("pki/ca")), 0o700);
    assert.equal(mode(p("kubelet/pki/kubelet-client.key")), 0o600);
    assert.equal(mode(p("kubelet/pki")), 0o700);
    for (const f of fs.readdirSync(p("init"))) assert.equal(mode(p(`init/${f}`)), 0o600, f);
    assert.equal(mode(p("init")), 0o700);
    assert.equal(mode(p("bootstrap-kubelet.conf")), 0o600);
  } finally {
    cleanup();
  }
});

Deno.test("CLI never overwrites without --force, and never writes through a symlink, --force or not", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const args = ["ca", "create", "--out-dir", dir, "--key-type", "ecdsa-p256", ...NOW];
    assert.equal((await runCli(args)).code, 0);
    const crt = fs.readFileSync(path.join(dir, "ca.crt"));
    const key = fs.readFileSync(path.join(dir, "ca.key"));
    const again = await runCli(args);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /ca\.(crt|key): already exists \(use --force to overwrite\)/);
    assert.deepEqual(fs.readFileSync(path.join(dir, "ca.crt")), crt);
    assert.deepEqual(fs.readFileSync(path.join(dir, "ca.key")), key);
    // --force with ca.key a symlink to a victim file: refused (docs/hardening.md, section 4),
    // the victim and the link kept, and nothing else moved into place.
    const victim = path.join(dir, "victim");
    fs.writeFileSync(victim, "precious\n", { mode: 0o644 });
    fs.rmSync(path.join(dir, "ca.key"));
    fs.symlinkSync(victim, path.join(dir, "ca.key"));
    const forced = await runCli([...args, "--force"]);
    assert.equal(forced.code, 1);
    assert.equal(
      forced.stderr,
      `error: ${
        path.join(dir, "ca.key")
      }: is a symbolic link; joinkit never writes through a link it did not make (remove it, or name its target)\n`,
    );
    assert.equal(fs.readFileSync(victim, "utf8"), "precious\n");
    assert.ok(fs.lstatSync(path.join(dir, "ca.key")).isSymbolicLink());
    assert.deepEqual(fs.readFileSync(path.join(dir, "ca.crt")), crt);
    assert.deepEqual(fs.readdirSync(dir).sort(), ["ca.crt", "ca.key", "victim"]);
  } finally {
    cleanup();
  }
});

/** Whether `text` is one complete CA certificate / private key PEM. */
async function complete(file: string, text: string): Promise<boolean> {
  try {
    if (file === "ca.crt") return certificatesFromPem(text, file).length === 1;
    await importPrivateKeyPem(text, file);
    return true;
  } catch {
    return false;
  }
}

Deno.test("CLI killed with SIGKILL mid-run leaves each file old or new and complete, never partial", async () => {
  const { dir, cleanup } = tempDir();
  const rng = new Rng(fuzzSeed() ^ 0x6b696c6c);
  const iterations = Number(process.env.JOINKIT_KILL_ITERATIONS ?? 6);
  try {
    const out = path.join(dir, "pki");
    const base = ["ca", "create", "--out-dir", out, ...NOW];
    assert.equal((await runCli([...base, "--key-type", "ecdsa-p256"])).code, 0);
    // How long a full run takes here, to spread the kills over its whole life.
    const t0 = performance.now();
    assert.equal((await runCli([...base, "--key-type", "rsa-3072", "--force"])).code, 0);
    const full = performance.now() - t0;
    const seen = new Map<string, Set<string>>([["ca.crt", new Set()], ["ca.key", new Set()]]);
    for (const f of seen.keys()) seen.get(f)!.add(fs.readFileSync(path.join(out, f), "utf8"));
    const strays = new Set<string>();
    let killedBeforeEnd = 0;
    for (let i = 0; i < iterations; i++) {
      // RSA key generation time varies run to run: kill within 10–80% of the measured run, so
      // a slow calibration run cannot push every kill past the end (seen under load in CI).
      const delay = Math.round(full * (0.1 + 0.7 * rng.float()));
      const [cmd, ...pre] = cliCommand();
      const child = spawn(cmd!, [...pre, ...base, "--key-type", "rsa-3072", "--force"], {
        stdio: "ignore",
      });
      const done = new Promise<number | null>((r) => child.on("close", (code) => r(code)));
      const timer = setTimeout(() => child.kill("SIGKILL"), delay);
      const code = await done;
      clearTimeout(timer);
      if (code === null) killedBeforeEnd++;
      for (const name of fs.readdirSync(out)) {
        if (seen.has(name)) continue;
        const m = TEMP.exec(name);
        assert.ok(m && seen.has(m[1]!), `unexpected file ${name} after kill ${i} at ${delay} ms`);
        strays.add(name);
      }
      for (const f of seen.keys()) {
        const text = fs.readFileSync(path.join(out, f), "utf8");
        if (!seen.get(f)!.has(text)) {
          assert.ok(await complete(f, text), `${f} is partial after kill ${i} at ${delay} ms`);
          seen.get(f)!.add(text);
        }
        if (f === "ca.key") assert.equal(mode(path.join(out, f)), 0o600);
      }
    }
    // Leftover temporaries (if any) do not stop the next run.
    const last = await runCli([...base, "--key-type", "ecdsa-p256", "--force"]);
    assert.equal(last.code, 0, last.stderr);
    assert.ok(killedBeforeEnd > 0 || iterations === 0, "no run was killed: delays too long");
    if (strays.size) {
      process.stderr.write(`temporaries left by SIGKILL (allowed): ${[...strays].join(", ")}\n`);
    }
  } finally {
    cleanup();
  }
});

/** Polls `check` every 5 ms until it returns true (or 30 s pass: then fails). */
async function until(check: () => boolean, what: string): Promise<void> {
  const t0 = Date.now();
  while (!check()) {
    if (Date.now() - t0 > 30_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

Deno.test("CLI killed inside the write windows (failpoint): old files intact, then old key beside new cert, never partial", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const out = path.join(dir, "pki");
    const base = ["ca", "create", "--out-dir", out, "--key-type", "ecdsa-p256", ...NOW];
    assert.equal((await runCli(base)).code, 0);
    const old = {
      crt: fs.readFileSync(path.join(out, "ca.crt"), "utf8"),
      key: fs.readFileSync(path.join(out, "ca.key"), "utf8"),
    };
    const [cmd, ...pre] = cliCommand();
    const mark = path.join(dir, "pause-mark");
    const start = (at: string) => {
      fs.rmSync(mark, { force: true });
      const child = spawn(cmd!, [...pre, ...base, "--force"], {
        stdio: "ignore",
        env: { ...process.env, JOINKIT_TEST_PAUSE: `${at}:10000`, JOINKIT_TEST_PAUSE_MARK: mark },
      });
      return { child, done: new Promise<void>((r) => child.on("close", () => r())) };
    };
    const temps = () => fs.readdirSync(out).filter((n) => TEMP.test(n));
    // 1. Killed after the temporaries are written, before any move: both targets are the old ones.
    let run = start("written");
    await until(() => fs.existsSync(mark), "the pause after the writes");
    assert.equal(temps().length, 2);
    run.child.kill("SIGKILL");
    await run.done;
    assert.equal(fs.readFileSync(path.join(out, "ca.crt"), "utf8"), old.crt);
    assert.equal(fs.readFileSync(path.join(out, "ca.key"), "utf8"), old.key);
    for (const t of temps()) {
      assert.equal(mode(path.join(out, t)), t.startsWith(".ca.key") ? 0o600 : 0o644, t);
      assert.ok(
        await complete(TEMP.exec(t)![1]!, fs.readFileSync(path.join(out, t), "utf8")),
        `${t} incomplete`,
      );
    }
    // 2. Killed between the two moves: a new complete ca.crt beside the old ca.key (documented).
    for (const t of temps()) fs.rmSync(path.join(out, t));
    run = start("moved");
    await until(
      () => fs.readFileSync(path.join(out, "ca.crt"), "utf8") !== old.crt,
      "the first move",
    );
    run.child.kill("SIGKILL");
    await run.done;
    const crt = fs.readFileSync(path.join(out, "ca.crt"), "utf8");
    assert.ok(await complete("ca.crt", crt));
    assert.equal(fs.readFileSync(path.join(out, "ca.key"), "utf8"), old.key);
    assert.equal(mode(path.join(out, "ca.key")), 0o600);
    // 3. A normal run afterwards mends the pair; the leftovers do not disturb it.
    const fixed = await runCli([...base, "--force"]);
    assert.equal(fixed.code, 0, fixed.stderr);
    const pair = await importPrivateKeyPem(
      fs.readFileSync(path.join(out, "ca.key"), "utf8"),
      "ca.key",
    );
    const certSpki = (await import("../../lib/pki/pin.ts")).spkiOf(
      certificatesFromPem(fs.readFileSync(path.join(out, "ca.crt"), "utf8"), "ca.crt")[0]!,
    );
    assert.deepEqual(pair.spki, certSpki);
  } finally {
    cleanup();
  }
});

Deno.test("CLI concurrent runs without --force: exactly one wins and its key matches its certificate", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const out = path.join(dir, "pki");
    fs.mkdirSync(out, { mode: 0o700 });
    const runs = await Promise.all(
      Array.from(
        { length: 4 },
        () => runCli(["ca", "create", "--out-dir", out, "--key-type", "ecdsa-p256", ...NOW]),
      ),
    );
    assert.equal(runs.filter((r) => r.code === 0).length, 1, runs.map((r) => r.stderr).join(""));
    for (const r of runs.filter((r) => r.code !== 0)) assert.match(r.stderr, /already exists/);
    assert.deepEqual(fs.readdirSync(out).sort(), ["ca.crt", "ca.key"]);
    const key = await importPrivateKeyPem(
      fs.readFileSync(path.join(out, "ca.key"), "utf8"),
      "ca.key",
    );
    const { spkiOf } = await import("../../lib/pki/pin.ts");
    assert.deepEqual(
      key.spki,
      spkiOf(certificatesFromPem(fs.readFileSync(path.join(out, "ca.crt"), "utf8"), "ca.crt")[0]!),
    );
  } finally {
    cleanup();
  }
});

Deno.test("CLI without --force takes back what it linked when a later target appears meanwhile (failpoint)", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const out = path.join(dir, "pki");
    fs.mkdirSync(out, { mode: 0o700 });
    const [cmd, ...pre] = cliCommand();
    const child = spawn(cmd!, [
      ...pre,
      "ca",
      "create",
      "--out-dir",
      out,
      "--key-type",
      "ecdsa-p256",
      ...NOW,
    ], {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, JOINKIT_TEST_PAUSE: "moved:2000" },
    });
    let stderr = "";
    child.stderr.on("data", (d: Uint8Array) => (stderr += new TextDecoder().decode(d)));
    const code = new Promise<number | null>((r) => child.on("close", (c) => r(c)));
    await until(() => fs.existsSync(path.join(out, "ca.crt")), "ca.crt linked");
    fs.writeFileSync(path.join(out, "ca.key"), "someone else's\n");
    assert.equal(await code, 1);
    assert.match(stderr, /ca\.key: already exists/);
    assert.deepEqual(fs.readdirSync(out), ["ca.key"]);
    assert.equal(fs.readFileSync(path.join(out, "ca.key"), "utf8"), "someone else's\n");
  } finally {
    cleanup();
  }
});
