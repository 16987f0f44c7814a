/**
 * Every command that takes a kubeadm `--config` splits the file as kubeadm's `SplitYAMLDocuments`
 * does before decoding (lib/kubeadm/init_config.ts readKubeadmDocuments). The texts are kubeadm
 * v1.32.5's: `kubeadm config validate --config F` printed them for these files (exit 1).
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { runCli, tempDir } from "../_cli.ts";

const root = tempDir("joinkit-split-");
const file = (name: string, text: string) => {
  const p = path.join(root.dir, name);
  fs.writeFileSync(p, text);
  return p;
};
const INIT = "apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\n" +
  "bootstrapTokens:\n- token: abcdef.0123456789abcdef\n";
const JOIN = fs.readFileSync("examples/kubeadm/join-worker.yaml", "utf8");
const NO_KIND =
  "invalid configuration for GroupVersionKind /, Kind=: kind and apiVersion is mandatory information that must be specified";
const CORE_V1 =
  "invalid configuration for GroupVersionKind /v1, Kind=ConfigMap: kind and apiVersion is mandatory information that must be specified";
const CONFIG_MAP = "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n";
const NOW = ["--now", "2026-12-01T00:00:00Z"];

const CASES: { what: string; name: string; text: string; argv: string[]; want: string }[] = [
  {
    what: "init --config: an empty piece after ---",
    name: "init-trailing.yaml",
    text: INIT + "---\n# end\n",
    argv: ["init", "--server", "https://10.0.0.1:6443", "--ca", "examples/demo/ca.crt", ...NOW],
    want: NO_KIND,
  },
  {
    what: "token create --config: a core v1 object beside the InitConfiguration",
    name: "token-v1.yaml",
    text: INIT + CONFIG_MAP,
    argv: ["token", "create", ...NOW],
    want: CORE_V1,
  },
  {
    what: "certs generate --config: an empty piece after ---",
    name: "certs-trailing.yaml",
    text: INIT.replace("bootstrapTokens:\n- token: abcdef.0123456789abcdef\n", "") +
      "localAPIEndpoint:\n  advertiseAddress: 10.0.0.5\nnodeRegistration:\n  name: cp-1\n---\n# end\n",
    argv: ["certs", "generate", "--out-dir", path.join(root.dir, "never-written"), ...NOW],
    want: NO_KIND,
  },
  {
    what: "node-payload --config: a core v1 object beside the JoinConfiguration",
    name: "join-v1.yaml",
    text: JOIN + CONFIG_MAP,
    argv: ["node-payload", "--node", "worker-1", ...NOW],
    want: CORE_V1,
  },
];

for (const c of CASES) {
  Deno.test(`CLI ${c.what} is refused with kubeadm's text, exit 1`, async () => {
    const p = file(c.name, c.text);
    const r = await runCli([...c.argv, "--config", p]);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr, `error: ${p}: ${c.want}\n`);
    assert.equal(r.stdout, "");
    assert.equal(fs.existsSync(path.join(root.dir, "never-written")), false);
  });
}

globalThis.addEventListener("unload", () => root.cleanup());
