import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";
import { runCli, tempDir } from "../_cli.ts";

// Issue 19 class 5: ca rotation-check reads what reaches nodes (node payloads) and never passes
// a run that checked nothing or skipped an input.
const NOW = ["--now", "2026-01-01T00:00:00Z"];
const { dir, cleanup } = tempDir("joinkit-rotation-payload-");
const p = (...n: string[]) => path.join(dir, ...n);

async function must(argv: string[]): Promise<string> {
  const r = await runCli(argv);
  if (r.code !== 0) throw new Error(`${argv.join(" ")}: ${r.stderr}`);
  return r.stdout;
}
await must(["ca", "create", "--out-dir", p("old"), "--key-type", "ecdsa-p256", ...NOW]);
await must(["ca", "create", "--out-dir", p("new"), "--key-type", "ecdsa-p256", ...NOW]);
const OLD_PIN = (await must(["ca", "hash", p("old", "ca.crt")])).trim();
const NEW_PIN = (await must(["ca", "hash", p("new", "ca.crt")])).trim();
const JOIN_PATH = "/run/kubeadm/kubeadm-join-config.yaml";
const join = (pin: string) =>
  `apiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\ndiscovery:\n  bootstrapToken:\n    apiServerEndpoint: 10.0.0.1:6443\n    token: abcdef.0123456789abcdef\n    caCertHashes:\n    - ${pin}\nnodeRegistration:\n  name: w\n`;
const cloudConfig = (text: string, header = "") =>
  `${header}#cloud-config\n\nwrite_files:\n-   path: ${JOIN_PATH}\n    encoding: "base64"\n    content: |\n      ${
    Buffer.from(text).toString("base64")
  }\n`;
// As node-payload writes Ignition: the script that runs `kubeadm join --config` rides along; it
// holds no pins of its own (they are in the config) and is no artefact.
const ignition = (text: string) =>
  JSON.stringify({
    ignition: { version: "3.4.0" },
    storage: {
      files: [
        {
          path: "/etc/kubeadm.sh",
          contents: {
            source: "data:," +
              encodeURIComponent(`#!/bin/bash\nset -e\n\nkubeadm join --config ${JOIN_PATH}\n`),
          },
        },
        { path: JOIN_PATH, contents: { source: "data:," + encodeURIComponent(text) } },
        { path: "/run/cluster-api/placeholder", contents: { source: "data:,placeholder" } },
      ],
    },
  });

async function rotationCheck(...files: string[]) {
  return await runCli(["ca", "rotation-check", "--ca", p("new", "ca.crt"), ...files, "-o", "json"]);
}

Deno.test("CLI ca rotation-check reads the JoinConfiguration inside cloud-config and Ignition payloads", async () => {
  fs.mkdirSync(p("payloads"));
  fs.writeFileSync(
    p("payloads", "old.cloud-config"),
    cloudConfig(join(OLD_PIN), "## template: jinja\n"),
  );
  fs.writeFileSync(p("payloads", "new.ign"), ignition(join(NEW_PIN)));
  const r = await rotationCheck(p("payloads"));
  assert.equal(r.code, 3, r.stderr);
  const rows = (JSON.parse(r.stdout) as { artefact: string; status: string }[]).map((f) => [
    path.relative(dir, f.artefact),
    f.status,
  ]);
  assert.deepEqual(rows, [
    [`payloads/new.ign:${JOIN_PATH}: JoinConfiguration (unnamed)`, "new-only"],
    [`payloads/old.cloud-config:${JOIN_PATH}: JoinConfiguration (unnamed)`, "old-only"],
  ]);
  assert.match(r.stderr, /\(2 node payload\(s\)\)/);
  const onlyNew = await rotationCheck(p("payloads", "new.ign"));
  assert.equal(onlyNew.code, 0, onlyNew.stderr);
});

Deno.test("CLI ca rotation-check does not pass a run that checked nothing or skipped an input (exit 1)", async () => {
  fs.mkdirSync(p("empty"));
  let r = await rotationCheck(p("empty"));
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^error: 0 artefact\(s\) checked in 0 file\(s\): nothing CA-related to check\n$/,
  );
  fs.writeFileSync(p("bad-pin.yaml"), join("sha256:zz"));
  r = await rotationCheck(p("bad-pin.yaml"), p("new", "ca.crt"));
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /skipped: .*bad-pin\.yaml: JoinConfiguration \(unnamed\): invalid discovery token CA certificate hash: invalid hash "sha256:zz"/,
  );
  assert.match(r.stderr, /a skipped input was not checked, the run does not pass\n$/);
  fs.writeFileSync(
    p("broken.cloud-config"),
    "#cloud-config\nwrite_files:\n- path: /x\n  encoding: base64\n  content: '!!'\n",
  );
  r = await rotationCheck(p("broken.cloud-config"), p("new", "ca.crt"));
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /skipped: .*broken\.cloud-config:\/x: content is not base64/);
});

Deno.test("ca rotation-check payload tests: cleanup", () => cleanup());
