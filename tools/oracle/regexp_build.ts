/**
 * Builds the `regexp` judgement's Go program (tools/oracle/regexp/) into
 * `.tmp/oracle/oracle-regexp`, with its own build overlay: the patches under
 * tools/oracle/regexp/patches/ applied to the toolchain's regexp sources
 * (overlay.ts). Go 1.23.5 plus the one regexp fix in Go's later sources
 * that joinkit follows: golang/go#59007 (a case-folded literal factored
 * together with its case-sensitive twin, so `Σ(?i)|σµ+` matched nothing of
 * `σµµ`). Without the overlay (another
 * toolchain) it builds plain Go and says so.
 *
 * @module
 */
// deno-lint-ignore-file no-console

import { PatchError, writeOverlay } from "./overlay.ts";

/** Builds the program with `go` and returns the binary's path. */
export async function buildRegexpJudge(go: string, root: string, out: string): Promise<string> {
  const bin = `${out}/oracle-regexp`;
  const env: Record<string, string> = { GOFLAGS: "-mod=mod", GOPROXY: "off", GOTOOLCHAIN: "local" };
  if (!Deno.env.get("GOCACHE")) env.GOCACHE = `${out}/gocache`;
  const goroot = new TextDecoder().decode(
    (await new Deno.Command(go, { args: ["env", "GOROOT"], stdout: "piped", env }).output()).stdout,
  ).trim();
  const args = ["build", "-o", bin];
  try {
    const json = await writeOverlay(
      goroot,
      `${root}tools/oracle/regexp/patches`,
      `${out}/regexp-overlay`,
    );
    args.push("-overlay", json);
    console.log("oracle: regexp judge: the toolchain's regexp with golang/go#59007's fix");
  } catch (e) {
    if (!(e instanceof PatchError)) throw e;
    console.log(`oracle: regexp overlay: ${e.message}; building plain ${goroot}'s regexp`);
  }
  const r = await new Deno.Command(go, {
    args: [...args, "./regexp"],
    cwd: `${root}tools/oracle`,
    env,
  }).output();
  if (!r.success) throw new Error(`go build ./regexp: ${new TextDecoder().decode(r.stderr)}`);
  return bin;
}
