import assert from "node:assert/strict";
import * as path from "node:path";
import {
  GITOPS_GITIGNORE,
  gitopsFiles,
  kustomizationYaml,
  protectedFileName,
  protectObjects,
  sealedProtection,
  sopsProtection,
} from "../../commands/_secret_output.ts";
import { sealingKeyFromCert } from "../../lib/gitops/sealed_secret.ts";
import type { KubeObject } from "../../lib/k8s/manifest.ts";
import { loadCertsPem } from "../../lib/pki/certsource.ts";
import { fixture, seededRandom } from "./_helpers.ts";

const R1 = "age1f7q34mhfnuf7vyp9t57ght97c0mjdchj0lmfsgcx3hwptf7wqd3qmkd2af";
const secret = (name: string, namespace?: string): KubeObject => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name, ...(namespace ? { namespace } : {}) },
  stringData: { k: "v" },
});

Deno.test("protectedFileName() names files after DNS-subdomain names only (no path can escape the directory)", () => {
  assert.equal(
    protectedFileName({ kind: "SealedSecret", metadata: { name: "a.b", namespace: "ns" } }),
    "ns.a.b.sealedsecret.yaml",
  );
  assert.equal(
    protectedFileName({ kind: "Secret", metadata: { name: "x" }, sops: {} }),
    "x.sops.yaml",
  );
  for (
    const [name, ns] of [["../x", "ns"], ["x", "../../etc"], ["A", "ns"], ["", "ns"], ["x/y", "ns"]]
  ) {
    assert.throws(
      () => protectedFileName({ kind: "SealedSecret", metadata: { name, namespace: ns } }),
      /not a valid object name \(a DNS subdomain\)/,
      `${ns}/${name}`,
    );
  }
});

Deno.test("gitopsFiles(): public files, one file per protected Secret, kustomization, private/ with .gitignore", () => {
  const dir = "/d";
  const files = gitopsFiles(
    dir,
    [{
      name: "rbac.yaml",
      objects: [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } }],
    }, {
      name: "empty.yaml",
      objects: [],
    }],
    [{ kind: "SealedSecret", metadata: { name: "s", namespace: "ns" } }],
    [{ name: "join-command.txt", data: "kubeadm join …\n" }],
  );
  assert.deepEqual(files.map((f) => [path.relative(dir, f.path), f.mode.toString(8), f.root]), [
    ["rbac.yaml", "644", dir],
    ["ns.s.sealedsecret.yaml", "644", dir],
    ["kustomization.yaml", "644", dir],
    [".gitignore", "644", dir],
    ["private/join-command.txt", "600", dir],
  ]);
  assert.equal(files[2]!.data, kustomizationYaml(["rbac.yaml", "ns.s.sealedsecret.yaml"]));
  assert.equal(files[3]!.data, GITOPS_GITIGNORE);
  assert.throws(
    () =>
      gitopsFiles(dir, [], [{ kind: "SealedSecret", metadata: { name: "s", namespace: "ns" } }, {
        kind: "SealedSecret",
        metadata: { name: "s", namespace: "ns" },
      }]),
    /two Secrets would share this file/,
  );
});

Deno.test("protectObjects(): only Secrets change; sealed and SOPS protections", async () => {
  const [cert] = await loadCertsPem(fixture("controller-2048.crt"), "c");
  const key = sealingKeyFromCert(cert!, new Date("2026-01-01T00:00:00Z"));
  const cm: KubeObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } };
  const sealed = protectObjects(
    [cm, secret("s", "ns")],
    await sealedProtection(key, "strict", { random: seededRandom("p") }),
    "in",
  );
  assert.equal(sealed[0], cm);
  assert.equal(sealed[1]!.kind, "SealedSecret");
  const sops = protectObjects(
    [cm, secret("s", "ns")],
    await sopsProtection([R1], new Date(0)),
    "in",
  );
  assert.equal(sops[0], cm);
  assert.equal(sops[1]!.kind, "Secret");
  assert.ok(sops[1]!.sops !== undefined);
});
