/**
 * `joinkit csr approve` and `csr sign --approve --policy` through the CLI:
 * the input's shape kept, conditions as the approvers write them, one
 * stderr line per refusal, the documented exit codes for bad policies and
 * bad objects (nothing written).
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { Buffer } from "node:buffer";
import { runCli, tempDir } from "../_cli.ts";
import { exportSpki, generateKeyPair } from "../../lib/pki/keys.ts";
import { createCsr, csrPem } from "../../lib/kubelet/csr.ts";
import { parseManifests, toJson, toYaml } from "../../lib/k8s/manifest.ts";

const NOW = "2026-05-06T07:08:09Z";
const SERVING = "kubernetes.io/kubelet-serving";
const CLIENT = "kubernetes.io/kube-apiserver-client-kubelet";

const kp = await generateKeyPair("ecdsa-p256");
const spki = await exportSpki(kp.publicKey);

async function csr(
  name: string,
  node: string,
  signer: string,
  sans: { dns?: string[]; ips?: string[] } = {},
  groups = ["system:nodes", "system:authenticated"],
) {
  const pem = csrPem(
    await createCsr(kp.privateKey, spki, {
      commonName: `system:node:${node}`,
      organization: ["system:nodes"],
      ...sans,
    }),
  );
  return {
    apiVersion: "certificates.k8s.io/v1",
    kind: "CertificateSigningRequest",
    metadata: { name },
    spec: {
      groups,
      request: Buffer.from(pem).toString("base64"),
      signerName: signer,
      usages: signer === SERVING
        ? ["digital signature", "server auth"]
        : ["digital signature", "client auth"],
      username: `system:node:${node}`,
    },
  };
}

const { dir, cleanup } = tempDir("joinkit-approve-");
const p = (n: string) => path.join(dir, n);
const good = await csr("serving-good", "node-1", SERVING, {
  dns: ["node-1.nodes.example.com"],
  ips: ["10.1.0.1"],
});
const evil = await csr("serving-evil", "node-2", SERVING, { dns: ["node-2.evil.io"] });
const client = await csr("client-renew", "node-3", CLIENT);
const other = { ...(await csr("other", "node-4", "example.com/signer")) };
const list = {
  apiVersion: "v1",
  items: [good, evil, client, other],
  kind: "List",
  metadata: { resourceVersion: "" },
};
fs.writeFileSync(p("list.yaml"), toYaml(list));
fs.writeFileSync(p("stream.yaml"), `${toYaml(good)}---\n${toYaml(evil)}`);
fs.writeFileSync(p("one.json"), toJson(good));
fs.writeFileSync(p("hosts"), "10.1.0.1 node-1.nodes.example.com\n");
fs.writeFileSync(
  p("policy.yaml"),
  [
    String.raw`providerRegex: '^[\w-]*\.nodes\.example\.com$'`,
    "providerIpPrefixes: [10.0.0.0/8, 'fd00::/8']",
    "hosts:",
    "  node-1.nodes.example.com: [10.1.0.1]",
    "",
  ].join("\n"),
);
const POLICY = ["--policy", p("policy.yaml"), "--now", NOW];
const R6 = "The SAN DNS name in the x509 CR is not allowed by the Cloud provider regex";

function conditions(obj: Record<string, unknown>): Record<string, unknown>[] {
  return ((obj.status as { conditions?: Record<string, unknown>[] } | undefined)?.conditions) ??
    [];
}

Deno.test({
  name: "CLI csr approve a List: approved, refused (pending), client approved, other skipped",
  sanitizeResources: false,
  fn: async () => {
    const r = await runCli(["csr", "approve", p("list.yaml"), ...POLICY]);
    assert.equal(r.code, 3, r.stderr);
    assert.deepEqual(r.stderr.trimEnd().split("\n"), [
      `error: ${p("list.yaml")}: object 2 (serving-evil): not approved: ${R6}`,
      `warning: ${
        p("list.yaml")
      }: object 4 (other): signer "example.com/signer" is handled by neither approver; left as is`,
    ]);
    assert.match(r.stdout, /^apiVersion: v1\nitems:\n/);
    assert.match(r.stdout, /\nkind: List\nmetadata:\n {2}resourceVersion: ""\n$/);
    const [g, e, c, o] = parseManifests(r.stdout);
    assert.deepEqual(conditions(g!), [{
      lastTransitionTime: NOW,
      lastUpdateTime: NOW,
      message: "CSR complied with kubelet-csr-approver validation process",
      reason: "kubelet-serving cert validated",
      status: "True",
      type: "Approved",
    }]);
    assert.deepEqual(conditions(e!), []);
    assert.equal(conditions(c!)[0]!.reason, "AutoApproved");
    assert.equal(
      conditions(c!)[0]!.message,
      "Auto approving self kubelet client certificate after SubjectAccessReview.",
    );
    assert.deepEqual(o, other);
  },
});

Deno.test("CLI csr approve --deny writes kubelet-csr-approver's Denied condition", async () => {
  const r = await runCli(["csr", "approve", p("stream.yaml"), ...POLICY, "--deny"]);
  assert.equal(r.code, 3);
  assert.equal(r.stderr, `error: ${p("stream.yaml")}: object 2 (serving-evil): denied: ${R6}\n`);
  // A stream stays a stream.
  assert.match(r.stdout, /\n---\napiVersion: certificates\.k8s\.io\/v1\n/);
  const [, e] = parseManifests(r.stdout);
  assert.deepEqual(conditions(e!), [{
    lastTransitionTime: NOW,
    lastUpdateTime: NOW,
    message: `CSR not complying with kubelet-csr-approver validation process. Reason: ${R6}`,
    reason: "kubelet-serving cert denied",
    status: "True",
    type: "Denied",
  }]);
  // --skip-deny-step wins over --deny, as upstream's flag.
  const skip = await runCli([
    "csr",
    "approve",
    p("stream.yaml"),
    ...POLICY,
    "--deny",
    "--skip-deny-step",
  ]);
  assert.equal(skip.code, 3);
  assert.match(skip.stderr, /^error: .*: not approved: /);
  assert.deepEqual(conditions(parseManifests(skip.stdout)[1]!), []);
});

Deno.test("CLI csr approve one JSON object stays JSON; flags and --hosts instead of a file", async () => {
  const r = await runCli([
    "csr",
    "approve",
    p("one.json"),
    "--provider-regex",
    String.raw`^node-\d+\.nodes\.example\.com$`,
    "--provider-ip-prefixes",
    "10.1.0.0/16",
    "--hosts",
    p("hosts"),
    "--now",
    NOW,
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "");
  assert.match(r.stdout, /^\{\n {4}"apiVersion": "certificates\.k8s\.io\/v1",/);
  assert.equal(conditions(JSON.parse(r.stdout))[0]!.type, "Approved");
  // Without the host table the DNS SAN does not resolve: a deny, as a failed lookup upstream.
  const miss = await runCli(["csr", "approve", p("one.json"), "--now", NOW]);
  assert.equal(miss.code, 3);
  assert.match(miss.stderr, /The SAN DNS Name could not be resolved, denying the CSR\n$/);
});

const BAD: { what: string; argv: string[]; code: 1 | 2; err: RegExp; setup?: () => void }[] = [
  {
    what: "unknown policy key",
    setup: () => fs.writeFileSync(p("bad-key.yaml"), "providerRegexp: x\n"),
    argv: ["--policy", p("bad-key.yaml")],
    code: 1,
    err: /bad-key\.yaml: unknown policy key "providerRegexp"/,
  },
  {
    what: "policy that does not parse",
    setup: () => fs.writeFileSync(p("bad-yaml.yaml"), "providerRegex: [unclosed\n"),
    argv: ["--policy", p("bad-yaml.yaml")],
    code: 1,
    err: /bad-yaml\.yaml/,
  },
  {
    what: "invalid CIDR in the file",
    setup: () => fs.writeFileSync(p("bad-cidr.yaml"), "providerIpPrefixes: [10.0.0.0/33]\n"),
    argv: ["--policy", p("bad-cidr.yaml")],
    code: 1,
    err: /bad-cidr\.yaml: providerIpPrefixes: Unable to parse IP prefix: 10\.0\.0\.0\/33$/,
  },
  {
    what: "invalid regex in the file",
    setup: () => fs.writeFileSync(p("bad-re.yaml"), "providerRegex: 'a(?=b)'\n"),
    argv: ["--policy", p("bad-re.yaml")],
    code: 1,
    err: /providerRegex: error parsing regexp: invalid or unsupported Perl syntax/,
  },
  {
    what: "invalid CIDR flag",
    argv: ["--provider-ip-prefixes", "192.168.0.0/16, fc00::/7"],
    code: 2,
    err: /^error: --provider-ip-prefixes: Unable to parse IP prefix: {2}fc00::\/7$/,
  },
  {
    what: "invalid regex flag",
    argv: ["--provider-regex", "(a)\\1"],
    code: 2,
    err: /^error: --provider-regex: error parsing regexp: invalid escape sequence/,
  },
  {
    what: "max-expiration-sec above 367 days",
    argv: ["--max-expiration-sec", "31708801"],
    code: 2,
    err: /cannot be lower than 0 nor greater than 367 days$/,
  },
  {
    what: "CSR object without spec.request",
    setup: () =>
      fs.writeFileSync(
        p("no-request.yaml"),
        toYaml({ ...good, spec: { ...good.spec, request: undefined } }),
      ),
    argv: [],
    code: 1,
    err: /no-request\.yaml: spec\.request is missing$/,
  },
  {
    what: "a PEM CSR",
    setup: () =>
      fs.writeFileSync(
        p("bare.csr"),
        Buffer.from(good.spec.request, "base64").toString("utf8"),
      ),
    argv: [],
    code: 1,
    err: /reads CertificateSigningRequest objects/,
  },
];

for (const row of BAD) {
  Deno.test(`CLI csr approve refuses ${row.what}: exit ${row.code}, one line, nothing written`, async () => {
    row.setup?.();
    const input = row.what === "CSR object without spec.request"
      ? p("no-request.yaml")
      : row.what === "a PEM CSR"
      ? p("bare.csr")
      : p("list.yaml");
    const out = p(`out-${row.code}-${row.what.replace(/\W+/g, "-")}.yaml`);
    const r = await runCli(["csr", "approve", input, ...row.argv, "--out", out]);
    assert.equal(r.code, row.code, r.stderr);
    assert.equal(r.stdout, "");
    const lines = r.stderr.trimEnd().split("\n");
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, row.err);
    assert.ok(!fs.existsSync(out));
  });
}

Deno.test("CLI csr sign --approve --policy signs what the policy approves, nothing else", async () => {
  const ca = await runCli(["ca", "create", "--out-dir", p("ca"), "--now", NOW]);
  assert.equal(ca.code, 0, ca.stderr);
  const r = await runCli([
    "csr",
    "sign",
    p("stream.yaml"),
    "--ca",
    p("ca/ca.crt"),
    "--ca-key",
    p("ca/ca.key"),
    "--approve",
    ...POLICY,
  ]);
  assert.equal(r.code, 3, r.stderr);
  assert.equal(
    r.stderr,
    `error: ${p("stream.yaml")}: object 2 (serving-evil): not approved by the policy: ${R6}\n`,
  );
  const [g, e] = parseManifests(r.stdout);
  assert.equal(conditions(g!)[0]!.reason, "kubelet-serving cert validated");
  assert.ok((g!.status as { certificate?: string }).certificate);
  assert.deepEqual(e, evil);

  const noApprove = await runCli([
    "csr",
    "sign",
    p("stream.yaml"),
    "--ca",
    p("ca/ca.crt"),
    "--ca-key",
    p("ca/ca.key"),
    "--policy",
    p("policy.yaml"),
  ]);
  assert.equal(noApprove.code, 2);
  assert.equal(noApprove.stderr, "error: --policy applies with --approve\n");
});

globalThis.addEventListener("unload", cleanup);

Deno.test("CLI csr approve --policy FILE that is not valid UTF-8 is bad input (exit 1): a regex byte Go refuses is not read as U+FFFD", async () => {
  const bad = p("policy-latin1.yaml");
  fs.writeFileSync(
    bad,
    Buffer.from("providerRegex: '^node-1\\.nodes\\.\xe9xample\\.com$'\n", "latin1"),
  );
  const r = await runCli(["csr", "approve", p("one.json"), "--policy", bad, "--now", NOW]);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, "");
  assert.equal(r.stderr, `error: ${bad}: not valid UTF-8\n`);
  // The same pattern in UTF-8 is read (and judges the CSR).
  fs.writeFileSync(bad, "providerRegex: '^node-1\\.nodes\\.\u00e9xample\\.com$'\n");
  const ok = await runCli(["csr", "approve", p("one.json"), "--policy", bad, "--now", NOW]);
  assert.equal(ok.code, 3, ok.stderr);
  assert.match(ok.stderr, /not allowed by the Cloud provider regex/);
});

Deno.test("CLI csr approve refuses an object whose conditions kube-apiserver would not store (exit 3, output unchanged)", async () => {
  const both = {
    ...good,
    status: {
      conditions: [
        { type: "Approved", status: "True", reason: "r", message: "m" },
        { type: "Denied", status: "True", reason: "r", message: "m" },
      ],
    },
  };
  fs.writeFileSync(p("both.yaml"), toYaml(both));
  const r = await runCli(["csr", "approve", p("both.yaml"), ...POLICY]);
  assert.equal(r.code, 3, r.stderr);
  assert.equal(
    r.stderr,
    `error: ${
      p("both.yaml")
    } (serving-good): not approved: CertificateSigningRequest.certificates.k8s.io "serving-good" is invalid: status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive\n`,
  );
  assert.deepEqual(parseManifests(r.stdout)[0], both);
});
