/**
 * A JSON List of token Secrets over 16 MiB, as `kubectl get secrets -o json`
 * writes one, read by the JSON List reader's templates
 * (lib/k8s/json_stream.ts, lib/k8s/json_items.ts) and, the same List with
 * a ConfigMap among every few hundred items, by the general path only:
 * `token list`, `token check --secrets` and `cluster-info sign` print the
 * same bytes, warnings and errors included, and exit the same.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import * as fs from "node:fs";
import * as path from "node:path";
import { runCli, tempDir } from "../_cli.ts";
import { MAX_INPUT_BYTES } from "../../lib/base/limits.ts";
import { Rng } from "../_fuzz.ts";

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const NOW = ["--now", "2026-11-26T00:00:00Z"];

/** Token Secret `i` as kubectl prints it from a cluster, with a few odd ones. */
function secret(rng: Rng, i: number): Record<string, unknown> {
  const id = (i * 7919).toString(36).padStart(6, "0").slice(-6);
  const meta: Record<string, unknown> = {
    creationTimestamp: "2026-11-25T10:00:00Z",
    name: `bootstrap-token-${id}`,
    namespace: "kube-system",
    resourceVersion: String(1000 + i),
    uid: `8f0e2c1a-${(i % 65536).toString(16).padStart(4, "0")}-4b1e-9d3c-0242ac120002`,
  };
  const data: Record<string, string> = {
    "auth-extra-groups": b64("system:bootstrappers:kubeadm:default-node-token"),
    expiration: b64(rng.chance(0.98) ? "2026-11-27T00:00:00Z" : "2026-11-25T00:00:00Z"),
    "token-id": b64(id),
    "token-secret": b64(`${id}0123456789`),
    "usage-bootstrap-authentication": b64("true"),
    "usage-bootstrap-signing": b64("true"),
  };
  const obj: Record<string, unknown> = {
    apiVersion: "v1",
    data,
    kind: "Secret",
    metadata: meta,
    type: "bootstrap.kubernetes.io/token",
  };
  const odd = rng.int(400);
  if (odd === 0) meta.namespace = "default"; // skipped, with a warning
  if (odd === 1) obj.type = "Opaque"; // not a token
  if (odd === 2) meta.annotations = { note: '{"a": "<b> & [c]"}' }; // escapes, brackets
  if (odd === 3) data["token-secret"] = b64("short"); // an error line
  if (odd === 4) delete data["usage-bootstrap-signing"]; // not for signing
  return obj;
}

Deno.test("CLI token list, token check and cluster-info sign read a kubectl JSON List over 16 MiB as the general path does", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const rng = new Rng(4242);
    const n = 21_000;
    const items = Array.from({ length: n }, (_, i) => secret(rng, i));
    items.push(secret(rng, 77)); // a name seen twice: a warning
    const list = (xs: unknown[]) =>
      JSON.stringify(
        { apiVersion: "v1", items: xs, kind: "List", metadata: { resourceVersion: "" } },
        null,
        4,
      ) + "\n";
    // The same Secrets with a ConfigMap among every 300 items: no part is all Secrets.
    const mixed = items.flatMap((x, i) => i % 300 === 0 ? [{ kind: "ConfigMap" }, x] : [x]);
    const info = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-info\n" +
      "  namespace: kube-public\ndata:\n  kubeconfig: |\n    apiVersion: v1\n    clusters: []\n";
    for (const [sub, xs] of [["fast", items], ["general", mixed]] as const) {
      fs.mkdirSync(path.join(dir, sub));
      fs.writeFileSync(path.join(dir, sub, "secrets.json"), list(xs));
      fs.writeFileSync(path.join(dir, sub, "ci.yaml"), info);
    }
    assert.ok(fs.statSync(path.join(dir, "fast", "secrets.json")).size > MAX_INPUT_BYTES);
    const id = (4000 * 7919).toString(36).padStart(6, "0").slice(-6);
    const runs = [
      ["token", "list", "secrets.json", ...NOW],
      ["token", "list", "secrets.json", "-o", "json", ...NOW],
      ["token", "check", `${id}.${id}0123456789`, "--secrets", "secrets.json", ...NOW],
      ["cluster-info", "sign", "ci.yaml", "--secrets", "secrets.json", ...NOW],
    ];
    for (const argv of runs) {
      const [fast, general] = await Promise.all([
        runCli(argv, { cwd: path.join(dir, "fast") }),
        runCli(argv, { cwd: path.join(dir, "general") }),
      ]);
      assert.equal(fast.stderr, general.stderr, argv.join(" "));
      assert.equal(fast.stdout, general.stdout, argv.join(" "));
      assert.equal(fast.code, general.code, argv.join(" "));
      assert.ok(fast.stdout.length > 0, argv.join(" "));
    }
    // What the odd Secrets made the commands say was said.
    const listed = await runCli(runs[0]!, { cwd: path.join(dir, "fast") });
    assert.equal(listed.code, 1);
    assert.match(listed.stderr, /skipped, not in namespace kube-system/);
    assert.match(listed.stderr, /replaces the one in secrets\.json/);
    assert.match(listed.stderr, /^error: secrets\.json: Secret kube-system\/bootstrap-token-/m);
  } finally {
    cleanup();
  }
});
