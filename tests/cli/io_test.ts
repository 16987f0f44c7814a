import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import process from "node:process";
import { ensureDir, readInputs, walkFiles, writeFilesAtomic } from "../../commands/_io.ts";
import { describeIoError, readInput } from "../../commands/_read.ts";
import { InputError } from "../../lib/base/errors.ts";
import { runCli, tempDir } from "../_cli.ts";
import { execFileSync } from "node:child_process";

Deno.test("writeFilesAtomic() writes every file with its mode and leaves no temp files", () => {
  const { dir, cleanup } = tempDir();
  try {
    const key = path.join(dir, "a.key"), crt = path.join(dir, "a.crt");
    writeFilesAtomic(
      [{ path: key, data: "k", mode: 0o600 }, { path: crt, data: "c", mode: 0o644 }],
      false,
    );
    assert.equal(fs.statSync(key).mode & 0o777, 0o600);
    assert.equal(fs.statSync(crt).mode & 0o777, 0o644);
    assert.deepEqual(fs.readdirSync(dir).sort(), ["a.crt", "a.key"]);
  } finally {
    cleanup();
  }
});

Deno.test("writeFilesAtomic() refuses to clobber and then writes nothing at all", () => {
  const { dir, cleanup } = tempDir();
  try {
    const a = path.join(dir, "a"), b = path.join(dir, "b");
    fs.writeFileSync(b, "old");
    assert.throws(
      () =>
        writeFilesAtomic([{ path: a, data: "new", mode: 0o600 }, {
          path: b,
          data: "new",
          mode: 0o600,
        }], false),
      /b: already exists \(use --force to overwrite\)/,
    );
    assert.deepEqual(fs.readdirSync(dir), ["b"]);
    assert.equal(fs.readFileSync(b, "utf8"), "old");
    writeFilesAtomic([{ path: b, data: "new", mode: 0o600 }], true);
    assert.equal(fs.readFileSync(b, "utf8"), "new");
    assert.equal(fs.statSync(b).mode & 0o777, 0o600);
  } finally {
    cleanup();
  }
});

Deno.test("readInput() names the file and the problem", () => {
  const { dir, cleanup } = tempDir();
  try {
    assert.throws(() => readInput(path.join(dir, "nope")), /nope: no such file or directory/);
    assert.throws(() => readInput(dir), /is a directory, expected a file/);
    fs.writeFileSync(path.join(dir, "f"), "x");
    assert.equal(readInput(path.join(dir, "f")).text, "x");
  } finally {
    cleanup();
  }
});

Deno.test("readInputs() expands directories in sorted order, skipping dot-files", () => {
  const { dir, cleanup } = tempDir();
  try {
    fs.mkdirSync(path.join(dir, "sub"));
    for (const f of ["b.yaml", "a.yaml", ".hidden", "sub/c.yaml"]) {
      fs.writeFileSync(path.join(dir, f), f);
    }
    assert.deepEqual(readInputs([dir]).map((i) => i.text), ["a.yaml", "b.yaml", "sub/c.yaml"]);
  } finally {
    cleanup();
  }
});

Deno.test("ensureDir() creates key directories 0700 and refuses a file in the way", () => {
  const { dir, cleanup } = tempDir();
  try {
    const d = path.join(dir, "pki");
    ensureDir(d, 0o700);
    assert.equal(fs.statSync(d).mode & 0o777, 0o700);
    fs.writeFileSync(path.join(dir, "file"), "");
    assert.throws(() => ensureDir(path.join(dir, "file")), InputError);
  } finally {
    cleanup();
  }
});

Deno.test("writeFilesAtomic() calls a directory in the way a directory, not an existing file", () => {
  const { dir, cleanup } = tempDir();
  try {
    const d = path.join(dir, "out");
    fs.mkdirSync(d);
    for (const force of [false, true]) {
      assert.throws(
        () => writeFilesAtomic([{ path: d, data: "x", mode: 0o600 }], force),
        (e: unknown) => e instanceof InputError && /out: is a directory$/.test(e.message),
      );
    }
    assert.deepEqual(fs.readdirSync(d), []);
  } finally {
    cleanup();
  }
});

Deno.test("walkFiles() lists regular files sorted, follows links, skips dot-files, reports what it leaves out", () => {
  const { dir, cleanup } = tempDir();
  try {
    fs.mkdirSync(path.join(dir, "pki", "etcd"), { recursive: true });
    fs.mkdirSync(path.join(dir, ".git"));
    fs.writeFileSync(path.join(dir, ".git", "config"), "x");
    fs.writeFileSync(path.join(dir, "pki", "ca.crt"), "x");
    fs.writeFileSync(path.join(dir, "pki", "etcd", "ca.crt"), "x");
    fs.writeFileSync(path.join(dir, "kubelet-client-2026.pem"), "x");
    fs.symlinkSync(
      path.join(dir, "kubelet-client-2026.pem"),
      path.join(dir, "kubelet-client-current.pem"),
    );
    fs.symlinkSync(path.join(dir, "gone"), path.join(dir, "dangling.pem"));
    let deep = dir;
    for (let i = 0; i < 18; i++) deep = path.join(deep, `d${i}`);
    fs.mkdirSync(deep, { recursive: true });
    fs.writeFileSync(path.join(deep, "too-deep.crt"), "x");
    const skipped: string[] = [];
    const files = walkFiles(dir, (f, why) => skipped.push(`${path.relative(dir, f)}: ${why}`));
    assert.deepEqual(files.map((f) => path.relative(dir, f)), [
      "kubelet-client-2026.pem",
      "kubelet-client-current.pem",
      "pki/ca.crt",
      "pki/etcd/ca.crt",
    ]);
    assert.deepEqual(skipped, [
      `${"d0/d1/d2/d3/d4/d5/d6/d7/d8/d9/d10/d11/d12/d13/d14/d15/d16"}: deeper than 16 levels`,
      "dangling.pem: dangling link or unreadable",
    ]);
    assert.throws(() => walkFiles(path.join(dir, "missing")), /missing: no such file or directory/);
  } finally {
    cleanup();
  }
});

Deno.test("walkFiles() walks a directory reached again through a link once: a loop to an ancestor, a second name", () => {
  const { dir, cleanup } = tempDir();
  try {
    fs.mkdirSync(path.join(dir, "pki"));
    fs.writeFileSync(path.join(dir, "pki", "ca.crt"), "x");
    fs.symlinkSync("..", path.join(dir, "pki", "up")); // a loop: pki/up/pki/up/...
    fs.symlinkSync("pki", path.join(dir, "pki-link")); // a second name, sorted after pki
    const skipped: string[] = [];
    const files = walkFiles(dir, (f, why) => skipped.push(`${path.relative(dir, f)}: ${why}`));
    assert.deepEqual(files.map((f) => path.relative(dir, f)), ["pki/ca.crt"]);
    assert.deepEqual(skipped, []);
  } finally {
    cleanup();
  }
});

Deno.test("describeIoError() names the file and says why in words for a full disk, a read-only or over-quota file system", () => {
  for (
    const [code, why] of [
      ["ENOSPC", "no space left on device"],
      ["EROFS", "read-only file system"],
      ["EDQUOT", "disk quota exceeded"],
      ["ENOENT", "no such file or directory"],
    ]
  ) {
    const err = Object.assign(new Error(`${code}: raw text, write`), { code });
    const e = describeIoError(err, "out/pki/ca.key");
    assert.ok(e instanceof InputError);
    assert.equal(e.message, `out/pki/ca.key: ${why}`);
  }
});

Deno.test("CLI a full disk is one line naming the file, exit 1, and no file left behind (a 16 KiB tmpfs; root only)", async () => {
  const t = tempDir("joinkit-io-full-");
  const mnt = path.join(t.dir, "tiny");
  fs.mkdirSync(mnt);
  try {
    try {
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=16k", "tmpfs", mnt], { stdio: "ignore" });
    } catch {
      process.stderr.write(
        "full-disk test skipped: cannot mount a tmpfs here (needs root and mount(8))\n",
      );
      return;
    }
    try {
      const out = path.join(mnt, "o");
      const r = await runCli([
        "certs",
        "generate",
        "--out-dir",
        out,
        "--node-name",
        "cp-1",
        "--apiserver-advertise-address",
        "10.0.0.5",
        "--encryption-algorithm",
        "ECDSA-P256",
      ]);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /^error: \S+: no space left on device\n$/);
      const left: string[] = [];
      const walk = (d: string) => {
        for (const e of fs.readdirSync(d, { withFileTypes: true })) {
          if (e.isDirectory()) walk(path.join(d, e.name));
          else left.push(path.join(d, e.name));
        }
      };
      walk(mnt);
      assert.deepEqual(left, []);
    } finally {
      execFileSync("umount", [mnt]);
    }
  } finally {
    t.cleanup();
  }
});
