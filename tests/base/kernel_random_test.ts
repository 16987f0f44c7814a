import assert from "node:assert/strict";
import * as fs from "node:fs";
import {
  DEV_RANDOM_RDEV,
  kernelRandomFill,
  type KernelRandomFs,
  kernelRandomReady,
  preferKernelRandom,
} from "../../lib/base/kernel_random.ts";

Deno.test("kernelRandomReady(): Linux 5.6 and later, where /dev/random is getrandom(2)'s", () => {
  const cases: [string, boolean][] = [
    ["5.6.0", true],
    ["5.6", true],
    ["5.10.0-28-amd64", true],
    ["6.1.0-18-amd64\n", true],
    ["6.18.44-fc-v857", true],
    ["10.0.0", true],
    ["5.5.19", false],
    ["5.4.0-150-generic", false],
    ["4.18.0-553.el8_10.x86_64", false],
    ["3.10.0-1160.el7.x86_64", false],
    ["", false],
    ["Linux", false],
    ["v6.1", false],
  ];
  for (const [release, want] of cases) assert.equal(kernelRandomReady(release), want, release);
});

/** A fake node:fs: the release, what /dev/random is, and the reads it answers. */
function fakeFs(opts: {
  release?: string;
  char?: boolean;
  rdev?: number;
  reads?: (number | string)[];
  openError?: string;
  fstatError?: string;
}) {
  const closed: number[] = [];
  const reads = [...(opts.reads ?? [])];
  let byte = 0;
  const fsLike: KernelRandomFs = {
    readFileSync(path) {
      assert.equal(path, "/proc/sys/kernel/osrelease");
      if (opts.release === undefined) throw Object.assign(new Error("ENOENT"), { code: "ENOENT" });
      return opts.release;
    },
    openSync(path) {
      assert.equal(path, "/dev/random");
      if (opts.openError) throw Object.assign(new Error(opts.openError), { code: opts.openError });
      return 7;
    },
    fstatSync: () => {
      if (opts.fstatError) {
        throw Object.assign(new Error(opts.fstatError), { code: opts.fstatError });
      }
      return { isCharacterDevice: () => opts.char ?? true, rdev: opts.rdev ?? DEV_RANDOM_RDEV };
    },
    readSync(_fd, buf, off, len) {
      const step = reads.shift() ?? len;
      if (typeof step === "string") throw Object.assign(new Error(step), { code: step });
      const n = Math.min(step, len);
      for (let i = 0; i < n; i++) buf[off + i] = ++byte & 0xff;
      return n;
    },
    closeSync: (fd) => void closed.push(fd),
  };
  return { fsLike, closed };
}

Deno.test("kernelRandomFill(): only the kernel's device on a kernel that seeds it first", () => {
  assert.equal(kernelRandomFill(fakeFs({ release: "4.18.0" }).fsLike), undefined, "old kernel");
  assert.equal(kernelRandomFill(fakeFs({}).fsLike), undefined, "no /proc");
  assert.equal(kernelRandomFill(fakeFs({ release: "6.1", openError: "ENOENT" }).fsLike), undefined);
  const file = fakeFs({ release: "6.1", char: false });
  assert.equal(kernelRandomFill(file.fsLike), undefined, "a regular file named /dev/random");
  assert.deepEqual(file.closed, [7]);
  const urandom = fakeFs({ release: "6.1", rdev: (1 << 8) | 9 });
  assert.equal(kernelRandomFill(urandom.fsLike), undefined, "another device (1:9, /dev/urandom)");
  assert.deepEqual(urandom.closed, [7]);
  const noStat = fakeFs({ release: "6.1", fstatError: "EIO" });
  assert.equal(kernelRandomFill(noStat.fsLike), undefined);
  assert.deepEqual(noStat.closed, [7], "closed when fstat fails");
});

Deno.test("preferKernelRandom(): asks once; without the kernel's source, or after it fails, WebCrypto's", () => {
  const web = (out: Uint8Array) => void out.fill(0xee);
  // No kernel source: asked once, never again.
  let asked = 0;
  const none = preferKernelRandom(() => (asked++, undefined), web);
  const out = new Uint8Array(3);
  for (let i = 0; i < 5; i++) none(out);
  assert.equal(asked, 1);
  assert.deepEqual([...out], [0xee, 0xee, 0xee]);
  // A working source, then a failing one: the failing draw and every later one are WebCrypto's.
  let calls = 0;
  let fail = false;
  asked = 0;
  const fill = preferKernelRandom(() => {
    asked++;
    return (o) => {
      calls++;
      if (fail) throw new Error("EIO");
      o.fill(0x11);
    };
  }, web);
  fill(out);
  assert.deepEqual([...out], [0x11, 0x11, 0x11]);
  fail = true;
  fill(out);
  assert.deepEqual([...out], [0xee, 0xee, 0xee]);
  fill(out);
  assert.deepEqual([asked, calls], [1, 2], "the failed source is not asked again");
});

Deno.test("kernelRandomFill(): fills every byte through short reads and EINTR; other errors throw", () => {
  const { fsLike, closed } = fakeFs({ release: "6.1.0", reads: [3, "EINTR", 1, 100] });
  const fill = kernelRandomFill(fsLike)!;
  const out = new Uint8Array(40);
  fill(out);
  assert.deepEqual([...out], Array.from({ length: 40 }, (_, i) => i + 1));
  assert.deepEqual(closed, [], "the device stays open for later draws");
  const eio = fakeFs({ release: "6.1", reads: ["EIO", 4] });
  const broken = kernelRandomFill(eio.fsLike)!;
  assert.throws(() => broken(new Uint8Array(4)), /EIO/);
  assert.deepEqual(eio.closed, [7], "a failed read closes the device");
  assert.throws(() => broken(new Uint8Array(4)), /EIO/, "and it is not read again");
  const eof = kernelRandomFill(fakeFs({ release: "6.1", reads: [0] }).fsLike)!;
  assert.throws(() => eof(new Uint8Array(4)), /end of file/);
});

const LINUX_READY = Deno.build.os === "linux" &&
  kernelRandomReady(
    fs.existsSync("/proc/sys/kernel/osrelease")
      ? fs.readFileSync("/proc/sys/kernel/osrelease", "latin1")
      : "",
  );

Deno.test({
  name: "kernelRandomFill() on this host's kernel: 64 KiB of distinct draws" +
    (LINUX_READY ? "" : " (skipped: not Linux 5.6 or later)"),
  ignore: !LINUX_READY,
  fn() {
    const fill = kernelRandomFill(fs as unknown as KernelRandomFs);
    assert.ok(fill, "/dev/random is the kernel's device here");
    const a = new Uint8Array(65536);
    const b = new Uint8Array(65536);
    fill(a);
    fill(b);
    assert.notDeepEqual(a, b);
    // Every byte value turns up in 64 KiB of uniform bytes (a missed fill leaves zeros).
    assert.equal(new Set(a).size, 256);
  },
});
