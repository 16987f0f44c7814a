/**
 * Test helper: Go's crypto/cipher AES-GCM, used exactly as kubeadm's
 * cryptoutil uses it (tests/fixtures/upload_certs/gcm), as an independent
 * implementation to check joinkit's against. {@link GO} is undefined when no
 * Go toolchain is installed; tests then skip with a message.
 *
 * @module
 */

import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import process from "node:process";
import { Buffer } from "node:buffer";
import { repoPath } from "./_cli.ts";

function findGo(): string | undefined {
  for (const c of ["go", "/usr/lib/go-1.23/bin/go", "/usr/local/go/bin/go"]) {
    if (spawnSync(c, ["version"], { stdio: "ignore" }).status === 0) return c;
  }
  return undefined;
}

/** The `go` command, or undefined when Go is not installed. */
export const GO: string | undefined = findGo();

/** Says once on stderr that `what` is skipped, when Go is absent. */
export function noteGoAbsent(what: string): void {
  if (!GO) {
    process.stderr.write(
      `${what}: go not found: the live Go crypto/cipher cross-checks are skipped\n`,
    );
  }
}

let built: string | undefined;

/** Builds the Go tool once per test worker (each its own copy); returns its path. */
export function goTool(): string {
  if (built) return built;
  // A directory of this module's own: test files run as workers of one process under
  // --parallel, so a name made from the pid alone was shared, built twice at once and removed
  // by whichever worker finished first.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "joinkit-gcm-"));
  const out = path.join(dir, "gcm");
  execFileSync(GO!, ["build", "-o", out, "."], {
    cwd: repoPath("tests/fixtures/upload_certs/gcm"),
    env: { ...process.env, GOFLAGS: "-mod=mod", GOTOOLCHAIN: "local" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  globalThis.addEventListener("unload", () => fs.rmSync(dir, { recursive: true, force: true }));
  built = out;
  return out;
}

/** Go's `gcm.Open` of a kubeadm blob (nonce ‖ ciphertext ‖ tag), as hex; throws on Go's refusal. */
export function goOpen(keyHex: string, blob: Uint8Array): string {
  return execFileSync(goTool(), ["open", keyHex, Buffer.from(blob).toString("hex")], {
    stdio: ["ignore", "pipe", "pipe"],
  }).toString()
    .trim();
}
