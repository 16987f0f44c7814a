/**
 * Linux's CSPRNG read from `/dev/random`, where that device gives what
 * `getrandom(2)` gives: the source Go's `crypto/rand` (and so kubeadm) draws
 * from. The single binary takes it for `lib/base/random.ts` when it can (main.ts):
 * reading the device with the `node:fs` already loaded costs 0.08 ms, loading
 * WebCrypto for `getRandomValues` 3.7 ms of a `token generate` that is held
 * to 1.15× the start-up of `node hello.js` (docs/binary.md).
 *
 * Taken only where it is as good as `getrandom(2)`: a kernel of 5.6 or later
 * (since 5.6 `/dev/random` blocks only until the kernel's generator is seeded,
 * then never: `getrandom(2)` with no flags; before, it blocked on an entropy
 * estimate and `/dev/urandom` did not wait for the seeding at all), and a
 * path that is the kernel's device (a character device, major 1, minor 8),
 * not a file somebody put there. Anywhere else (another OS, an older kernel,
 * no `/proc` or `/dev` in a container, a failed read) the caller keeps
 * WebCrypto.
 *
 * @module
 */

/** The part of `node:fs` this module uses (injected: the library stays runtime-neutral). */
export interface KernelRandomFs {
  openSync(path: string, flags: string): number;
  fstatSync(fd: number): { isCharacterDevice(): boolean; rdev: number };
  readSync(
    fd: number,
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: null,
  ): number;
  closeSync(fd: number): void;
  readFileSync(path: string, encoding: "latin1"): string;
}

/** `/dev/random`'s device number as `stat` gives it: major 1, minor 8. */
export const DEV_RANDOM_RDEV = (1 << 8) | 8;

/**
 * Whether a kernel release string (`uname -r`) is Linux 5.6 or later.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(kernelRandomReady("6.1.0-18-amd64"), true);
 * assert.equal(kernelRandomReady("5.6.0"), true);
 * assert.equal(kernelRandomReady("4.18.0-553.el8_10.x86_64"), false);
 * ```
 */
export function kernelRandomReady(release: string): boolean {
  const m = /^(\d+)\.(\d+)/.exec(release.trim());
  if (!m) return false;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > 5 || (major === 5 && minor >= 6);
}

/**
 * A function filling a byte array from `/dev/random`, or undefined where the
 * device is not the one described above (see the module's comment). The
 * device stays open for the process's later draws; after a failed read it is
 * closed and the function throws that error again at every call.
 */
export function kernelRandomFill(
  fs: KernelRandomFs,
): ((out: Uint8Array) => void) | undefined {
  let fd: number;
  try {
    if (!kernelRandomReady(fs.readFileSync("/proc/sys/kernel/osrelease", "latin1"))) {
      return undefined;
    }
    fd = fs.openSync("/dev/random", "r");
  } catch {
    return undefined;
  }
  const close = () => {
    try {
      fs.closeSync(fd);
    } catch {
      // Nothing more to do with it.
    }
  };
  try {
    const st = fs.fstatSync(fd);
    if (!st.isCharacterDevice() || st.rdev !== DEV_RANDOM_RDEV) {
      close();
      return undefined;
    }
  } catch {
    close();
    return undefined;
  }
  let broken: unknown;
  return (out) => {
    if (broken !== undefined) throw broken;
    for (let off = 0; off < out.length;) {
      try {
        const n = fs.readSync(fd, out, off, out.length - off, null);
        if (n <= 0) throw new Error("/dev/random: end of file");
        off += n;
      } catch (e) {
        if ((e as { code?: string }).code === "EINTR") continue;
        // A failed read ends the device's use: it is closed, and every later call throws.
        broken = e;
        close();
        throw e;
      }
    }
  };
}

/**
 * A CSPRNG fill that asks `kernel` once, on the first draw, for the kernel's
 * source ({@link kernelRandomFill}) and uses it while it works; where there
 * is none, and from the first failed read on, `fallback` (WebCrypto).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * let asked = 0;
 * const fill = preferKernelRandom(() => (asked++, undefined), (out) => out.fill(7));
 * const a = new Uint8Array(2);
 * fill(a);
 * fill(a);
 * assert.deepEqual([...a], [7, 7]);
 * assert.equal(asked, 1);
 * ```
 */
export function preferKernelRandom(
  kernel: () => ((out: Uint8Array) => void) | undefined,
  fallback: (out: Uint8Array) => void,
): (out: Uint8Array) => void {
  let source: ((out: Uint8Array) => void) | null | undefined;
  return (out) => {
    if (source === undefined) source = kernel() ?? null;
    if (source !== null) {
      try {
        source(out);
        return;
      } catch {
        source = null;
      }
    }
    fallback(out);
  };
}
