/**
 * token check keeps only the Secrets the authenticator can pick (its name)
 * while it reads: the last Secret of that name still wins, other Secrets
 * are still decoded (a malformed one is refused), whatever comes between.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { runCli, tempDir } from "../_cli.ts";

const NOW = ["--now", "2026-01-01T00:30:00Z"];

function secret(id: string, secret: string, ns = "kube-system"): string {
  return `apiVersion: v1
kind: Secret
metadata:
  name: bootstrap-token-${id}
  namespace: ${ns}
type: bootstrap.kubernetes.io/token
stringData:
  token-id: ${id}
  token-secret: ${secret}
  usage-bootstrap-authentication: "true"
`;
}

Deno.test("CLI token check: the last Secret of the token's name wins among thousands of others", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const others = Array.from(
      { length: 3000 },
      (_, i) => secret(i.toString(36).padStart(6, "0").replace(/^0/, "z"), "0123456789abcdef"),
    );
    const good = secret("abcdef", "0123456789abcdef");
    const bad = secret("abcdef", "ffffffffffffffff");
    const check = async (docs: string[]) => {
      const file = path.join(dir, "s.yaml");
      fs.writeFileSync(file, docs.join("---\n"));
      return await runCli(["token", "check", "abcdef.0123456789abcdef", "--secrets", file, ...NOW]);
    };
    const ok = await check([bad, ...others, good]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /^user: system:bootstrap:abcdef\n/);
    const no = await check([good, ...others, bad]);
    assert.equal(no.code, 3);
    assert.match(no.stderr, /token rejected at step 5/);
    // Another namespace is not the authenticator's: the one in kube-system before it counts.
    const ns = await check([good, ...others, secret("abcdef", "ffffffffffffffff", "default")]);
    assert.equal(ns.code, 0, ns.stderr);
    // A malformed Secret of another name is still refused.
    const broken = secret("zzzzzz", "0123456789abcdef").replace("stringData", "data");
    const e = await check([good, broken, ...others]);
    assert.equal(e.code, 1);
    assert.equal(e.stdout, "");
    assert.match(e.stderr, /^error: .*s\.yaml: .*zzzzzz.*\n$/);
  } finally {
    cleanup();
  }
});
