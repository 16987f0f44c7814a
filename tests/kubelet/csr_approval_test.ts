/**
 * The approval policy against upstream's vectors: kubelet-csr-approver's
 * csr_controller_test.go rows (policy-lifecycle.md §1.6 and §6 A, with its
 * mock DNS as the host table), the rows derived from its code, its
 * start-up checks, and csrapproving's TestRecognizers (csr-pki.md §1.5).
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { exportSpki, generateKeyPair } from "../../lib/pki/keys.ts";
import { createCsr, csrPem } from "../../lib/kubelet/csr.ts";
import {
  buildPolicy,
  MAX_EXPIRATION_SECONDS,
  parseHostsFile,
  parsePolicyFile,
  parsePrefix,
  type PolicySettings,
  prefixContains,
} from "../../lib/kubelet/approval_policy.ts";
import { approveObject, CONDITIONS, KCA_REASONS } from "../../lib/kubelet/csr_approval.ts";
import { InputError } from "../../lib/base/errors.ts";
import type { KubeObject } from "../../lib/k8s/manifest.ts";

const NOW = new Date("2026-01-02T03:04:05Z");
const N = "k3x9";
const SERVING = "kubernetes.io/kubelet-serving";
const CLIENT = "kubernetes.io/kube-apiserver-client-kubelet";

const kp = await generateKeyPair("ecdsa-p256");
const spki = await exportSpki(kp.publicKey);

interface CsrSpec {
  node?: string;
  cn?: string;
  org?: string[];
  dns?: string[];
  ips?: string[];
  signer?: string;
  username?: string;
  groups?: string[];
  usages?: string[];
  expirationSeconds?: number;
}

/** kca's createCsr: CN = username unless overridden, O system:nodes, serving usages. */
async function csrObject(s: CsrSpec): Promise<KubeObject> {
  const node = s.node ?? N;
  const username = s.username ?? `system:node:${node}`;
  const pem = csrPem(
    await createCsr(kp.privateKey, spki, {
      commonName: s.cn ?? username,
      organization: s.org ?? ["system:nodes"],
      dns: s.dns ?? [],
      ips: s.ips ?? [],
    }),
  );
  const spec: Record<string, unknown> = {
    request: Buffer.from(pem).toString("base64"),
    signerName: s.signer ?? SERVING,
    usages: s.usages ?? ["digital signature", "key encipherment", "server auth"],
    username,
  };
  if (s.groups) spec.groups = s.groups;
  if (s.expirationSeconds) spec.expirationSeconds = s.expirationSeconds;
  return {
    apiVersion: "certificates.k8s.io/v1",
    kind: "CertificateSigningRequest",
    metadata: { name: `csr-${node}` },
    spec,
  };
}

/** The envtest configuration (testenv_setup_test.go) with its mock DNS. */
const TEST_ENV: PolicySettings = {
  providerRegex: String.raw`^[\w-]*\.test\.ch$`,
  maxExpirationSeconds: MAX_EXPIRATION_SECONDS,
  allowedDnsNames: 3,
  providerIpPrefixes: "192.168.0.0/16,fc00::/7",
  ignoreNonSystemNode: true,
  hosts: {
    [`${N}.test.ch.`]: ["192.168.14.34", "fc00:1291:feed::cafe"],
    [`${N}-v4-non-whitelisted.test.ch.`]: ["9.9.9.9"],
    [`${N}-v6-non-whitelisted.test.ch.`]: ["2001:c0fe:beef::14"],
    "fishing.google.com.": ["1.2.3.14"],
    [`${N}.phishingTemptative.ch.`]: ["1.2.3.14"],
  },
};

const policyOf = (extra: PolicySettings = {}) =>
  buildPolicy({ ...TEST_ENV, ...extra }, (k, m) => new Error(`${k}: ${m}`)).policy;

type Verdict = "Approved" | "Denied" | "neither";

interface Row {
  test: string;
  csr: CsrSpec;
  policy?: PolicySettings;
  verdict: Verdict;
  reason?: string;
}

const BOTH_IPS = ["192.168.14.34", "fc00:1291:feed::cafe"];

const KCA_ROWS: Row[] = [
  {
    test: "TestValidCsrApproved",
    csr: { dns: [`${N}.test.ch`], ips: BOTH_IPS },
    verdict: "Approved",
  },
  {
    test: "TestWrongSignerCsr",
    csr: { dns: [`${N}.test.ch`], ips: BOTH_IPS, signer: "example.com/not-kubelet-serving" },
    verdict: "neither",
  },
  {
    test: "TestSkipDenyFlag",
    csr: { dns: ["fishing-test.google.com"], ips: BOTH_IPS },
    policy: { skipDenyStep: true },
    verdict: "neither",
    reason: KCA_REASONS.R5,
  },
  {
    test: "TestNonMatchingCommonNameUsername",
    csr: { dns: [`${N}.test.ch`], ips: BOTH_IPS, cn: "funny-common-name" },
    verdict: "Denied",
    reason: KCA_REASONS.R3,
  },
  {
    test: "TestRegexCheckActiveWithBypass",
    csr: { node: "a", dns: ["a.test.ch", "auth.evil.io"] },
    policy: { bypassDnsResolution: true },
    verdict: "Denied",
    reason: KCA_REASONS.R6,
  },
  {
    test: "TestInvalidDNSName",
    csr: { dns: ["fishing.google.com"] },
    verdict: "Denied",
    reason: KCA_REASONS.R5,
  },
  {
    test: "TestInvalidRegexName",
    csr: { dns: [`${N}.phishingTemptative.ch`] },
    verdict: "Denied",
    reason: KCA_REASONS.R6,
  },
  {
    test: "TestUnresolvedDNSName",
    csr: { node: "unresolved", dns: ["unresolved.test.ch"] },
    verdict: "Denied",
    reason: KCA_REASONS.R7,
  },
  {
    test: "TestMismatchedResolvedIpsSANIps",
    csr: { dns: [`${N}.test.ch`], ips: ["9.9.9.9"] },
    verdict: "Denied",
    reason: KCA_REASONS.R11("9.9.9.9"),
  },
  {
    test: "TestExpirationSecondsTooLarge",
    csr: { dns: [`${N}.test.ch`], expirationSeconds: 368 * 24 * 3600 },
    verdict: "Denied",
    reason: KCA_REASONS.R13,
  },
  {
    test: "TestSANCheckedEvenWithDNSResolutionBypassed",
    csr: { dns: [`${N}-unresolved.test.ch`] },
    policy: { bypassDnsResolution: true },
    verdict: "Approved",
  },
  {
    test: "TestX509CRIPAddressesWithDNSBypass",
    csr: { dns: [`${N}-unresolved.test.ch`], ips: ["192.168.3.4"] },
    policy: { bypassDnsResolution: true },
    verdict: "Approved",
  },
  {
    test: "TestBypassDNSResolution",
    csr: { dns: [`${N}-unresolved.test.ch`] },
    policy: { bypassDnsResolution: true },
    verdict: "Approved",
  },
  {
    test: "TestIPv4NotWhitelisted",
    csr: { dns: [`${N}-v4-non-whitelisted.test.ch`], ips: ["9.9.9.9"] },
    verdict: "Denied",
    reason: KCA_REASONS.R9("9.9.9.9"),
  },
  {
    test: "TestIPv6NotWhitelisted",
    csr: { dns: [`${N}-v6-non-whitelisted.test.ch`], ips: ["2001:c0fe:beef::14"] },
    verdict: "Denied",
    reason: KCA_REASONS.R9("2001:c0fe:beef::14"),
  },
  {
    test: "TestIPv6WithoutDNSNotWhitelisted",
    csr: { ips: ["2001:c0fe:beef::14"] },
    verdict: "Denied",
    reason: KCA_REASONS.R12("2001:c0fe:beef::14"),
  },
  // Derived from the code (policy-lifecycle.md §6 A).
  {
    test: "derived: non-node requester, ignore flag off",
    csr: { username: "system:bootstrap:abc", dns: [`${N}.test.ch`] },
    policy: { ignoreNonSystemNode: false },
    verdict: "Denied",
    reason: KCA_REASONS.R1,
  },
  {
    test: "derived: non-node requester, ignore flag on",
    csr: { username: "system:bootstrap:abc", dns: [`${N}.test.ch`] },
    verdict: "neither",
    reason: KCA_REASONS.R1,
  },
  { test: "derived: no SANs", csr: {}, verdict: "Denied", reason: KCA_REASONS.R2 },
  {
    test: "derived: two DNS SANs, allowed-dns-names=1",
    csr: { dns: [`${N}.test.ch`, `${N}-b.test.ch`] },
    policy: { allowedDnsNames: 1 },
    verdict: "Denied",
    reason: KCA_REASONS.R4,
  },
  {
    test: "derived: expirationSeconds equal to the maximum",
    csr: { dns: [`${N}.test.ch`], expirationSeconds: MAX_EXPIRATION_SECONDS },
    verdict: "Approved",
  },
  {
    test: "derived: hostname check bypassed",
    csr: { dns: ["fishing.google.com"] },
    policy: { bypassHostnameCheck: true, providerRegex: ".*", providerIpPrefixes: "1.2.3.0/24" },
    verdict: "Approved",
  },
];

function conditionsOf(obj: KubeObject): Record<string, unknown>[] {
  const status = obj.status as { conditions?: Record<string, unknown>[] } | undefined;
  return status?.conditions ?? [];
}

for (const row of KCA_ROWS) {
  Deno.test(`approveObject() kubelet-csr-approver ${row.test}`, async () => {
    const p = policyOf(row.policy);
    const o = approveObject(await csrObject(row.csr), "in.yaml", p, NOW, true);
    const conds = conditionsOf(o.obj);
    if (row.verdict === "neither") {
      assert.equal(conds.length, 0);
      assert.equal(o.changed, false);
    } else {
      assert.equal(conds.length, 1);
      const want = row.verdict === "Approved"
        ? CONDITIONS.kcaApproved
        : CONDITIONS.kcaDenied(row.reason!);
      assert.deepEqual(conds[0], {
        lastTransitionTime: "2026-01-02T03:04:05Z",
        lastUpdateTime: "2026-01-02T03:04:05Z",
        message: want.message,
        reason: want.reason,
        status: "True",
        type: row.verdict,
      });
    }
    if (row.reason) assert.equal(o.decision.reason, row.reason);
  });
}

Deno.test("approveObject() the reference's full message strings for the IP cases", async () => {
  const p = policyOf();
  const mismatched = approveObject(
    await csrObject({ dns: [`${N}.test.ch`], ips: ["9.9.9.9"] }),
    "x",
    p,
    NOW,
    true,
  );
  assert.equal(
    conditionsOf(mismatched.obj)[0]!.message,
    "CSR not complying with kubelet-csr-approver validation process. Reason: One of the SAN IP addresses, 9.9.9.9, is not contained in the set of resolved IP addresses, denying the CSR.",
  );
  assert.equal(
    KCA_REASONS.R9("9.9.9.9"),
    "One of the resolved IP addresses, 9.9.9.9,isn't part of the provider-specified set of whitelisted IP. denying the certificate",
  );
  assert.equal(
    KCA_REASONS.R12("2001:c0fe:beef::14"),
    "One of the SAN IP addresses, 2001:c0fe:beef::14, is not partof the allowed IP Prefixes/Subnets, denying the CSR.",
  );
});

Deno.test("approveObject() without --deny a refused CSR stays pending", async () => {
  const o = approveObject(await csrObject({}), "x", policyOf(), NOW, false);
  assert.equal(o.decision.action, "deny");
  assert.equal(o.changed, false);
  assert.equal(conditionsOf(o.obj).length, 0);
});

Deno.test("approveObject() leaves decided or issued CSRs alone", async () => {
  const base = await csrObject({ dns: [`${N}.test.ch`] });
  for (
    const status of [
      { conditions: [{ type: "Approved", status: "True" }] },
      { conditions: [{ type: "Denied", status: "True" }] },
      { conditions: [{ type: "Failed", status: "True" }, { type: "Approved", status: "True" }] },
      { certificate: Buffer.from("x").toString("base64") },
    ]
  ) {
    const o = approveObject({ ...base, status }, "x", policyOf(), NOW, true);
    assert.equal(o.decision.action, "skip");
    assert.equal(o.changed, false);
  }
});

// kube-apiserver never stores these (validateConditions), so no approver sees them: refused with
// its text and left as they are, as csr sign refuses them (they were skipped as "decided").
Deno.test("approveObject() refuses conditions kube-apiserver would not store, with its text, unchanged", async () => {
  const base = await csrObject({ dns: [`${N}.test.ch`] });
  const name = String((base.metadata as { name?: string }).name);
  const rows: [Record<string, unknown>[], string][] = [
    [
      [{ type: "Denied", status: "False" }],
      'status.conditions[0].status: Unsupported value: "False": supported values: "True"',
    ],
    [
      [{ type: "Approved", status: "Unknown" }],
      'status.conditions[0].status: Unsupported value: "Unknown": supported values: "True"',
    ],
    [
      [{ type: "Approved", status: "True" }, { type: "Denied", status: "True" }],
      'status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
    ],
    [
      [{ type: "Approved", status: "True" }, { type: "Approved", status: "True" }],
      'status.conditions[1].type: Duplicate value: "Approved"',
    ],
    [[{ type: "Approved" }], "status.conditions[0].status: Required value"],
  ];
  for (const [conditions, want] of rows) {
    const obj = { ...base, status: { conditions } };
    const o = approveObject(obj, "x", policyOf(), NOW, true);
    assert.equal(o.decision.action, "pending", want);
    assert.equal(
      o.decision.reason,
      `CertificateSigningRequest.certificates.k8s.io ${JSON.stringify(name)} is invalid: ${want}`,
    );
    assert.equal(o.changed, false);
    assert.equal(o.obj, obj);
  }
});

Deno.test("approveObject() a CSR object without spec.request is bad input", () => {
  assert.throws(
    () =>
      approveObject(
        { apiVersion: "certificates.k8s.io/v1", kind: "CertificateSigningRequest", spec: {} },
        "in.yaml",
        policyOf(),
        NOW,
        true,
      ),
    (e: unknown) => e instanceof InputError && /spec\.request is missing/.test(e.message),
  );
});

Deno.test("approveObject() a request that does not parse stays pending, never denied", () => {
  const o = approveObject(
    {
      apiVersion: "certificates.k8s.io/v1",
      kind: "CertificateSigningRequest",
      metadata: { name: "junk" },
      spec: { request: Buffer.from("junk").toString("base64"), signerName: SERVING },
    },
    "x",
    policyOf(),
    NOW,
    true,
  );
  assert.equal(o.decision.action, "pending");
  assert.equal(
    o.decision.reason,
    'unable to parse csr "junk": PEM block type must be CERTIFICATE REQUEST',
  );
  assert.equal(o.changed, false);
});

// csrapproving's TestRecognizers (csr-pki.md §1.5), each with both base usage sets.
const CLIENT_BASE: CsrSpec = {
  signer: CLIENT,
  node: "foo",
  username: "system:node:foo",
  cn: "system:node:foo",
  groups: ["system:nodes"],
};

interface RecognizerRow {
  name: string;
  mutate: CsrSpec;
  node: boolean;
  self: boolean;
}

const RECOGNIZER_ROWS: RecognizerRow[] = [
  { name: "good", mutate: {}, node: true, self: true },
  { name: "bad-1", mutate: { cn: "mike" }, node: false, self: false },
  { name: "bad-2", mutate: { org: [] }, node: false, self: false },
  { name: "bad-3", mutate: { org: ["system:master"] }, node: false, self: false },
  { name: "bad-4", mutate: { usages: ["server auth"] }, node: false, self: false },
  { name: "bad-5", mutate: { signer: "example.com/not-correct" }, node: false, self: false },
  { name: "bad-6", mutate: { signer: SERVING }, node: false, self: false },
  { name: "diffCN-1", mutate: { username: "joe" }, node: true, self: false },
  { name: "diffCN-2", mutate: { cn: "system:node:bar" }, node: true, self: false },
];

for (
  const usages of [["key encipherment", "digital signature", "client auth"], [
    "digital signature",
    "client auth",
  ]]
) {
  for (const row of RECOGNIZER_ROWS) {
    Deno.test(`approveObject() csrapproving TestRecognizers ${row.name} (${usages.length} usages)`, async () => {
      const extra = row.mutate.usages ? [...usages, ...row.mutate.usages] : usages;
      const spec = { ...CLIENT_BASE, ...row.mutate, usages: extra };
      // SAR allowed for both subresources: a requester in both bound groups.
      const all = policyOf({
        nodeClientGroups: ["g"],
        selfNodeClientGroups: ["g"],
      });
      const o = approveObject(await csrObject({ ...spec, groups: ["g"] }), "x", all, NOW, false);
      if (row.mutate.signer === SERVING) return; // kca's business, not csrapproving's
      if (row.self) assert.deepEqual(o.decision.condition, CONDITIONS.selfNodeClient);
      else if (row.node) assert.deepEqual(o.decision.condition, CONDITIONS.nodeClient);
      else assert.notEqual(o.decision.action, "approve");
    });
  }
}

Deno.test("approveObject() csrapproving answers the SubjectAccessReview from the policy's groups", async () => {
  const p = policyOf();
  const bootstrap = await csrObject({
    ...CLIENT_BASE,
    username: "system:bootstrap:abcdef",
    groups: ["system:bootstrappers", "system:bootstrappers:kubeadm:default-node-token"],
    usages: ["digital signature", "client auth"],
  });
  const a = approveObject(bootstrap, "x", p, NOW, false);
  assert.deepEqual(conditionsOf(a.obj)[0]!.message, CONDITIONS.nodeClient.message);
  assert.equal(conditionsOf(a.obj)[0]!.reason, "AutoApproved");

  const renewal = await csrObject({ ...CLIENT_BASE, usages: ["digital signature", "client auth"] });
  const r = approveObject(renewal, "x", p, NOW, false);
  assert.equal(conditionsOf(r.obj)[0]!.message, CONDITIONS.selfNodeClient.message);

  const stranger = await csrObject({
    ...CLIENT_BASE,
    groups: ["system:authenticated"],
    usages: ["digital signature", "client auth"],
  });
  const s = approveObject(stranger, "x", p, NOW, true);
  assert.equal(
    s.decision.reason,
    'recognized csr "csr-foo" as [selfnodeclient nodeclient] but subject access review was not approved',
  );
  assert.deepEqual(conditionsOf(s.obj)[0]!.reason, "KubectlDeny");
  assert.deepEqual(
    conditionsOf(s.obj)[0]!.message,
    "This CSR was denied by kubectl certificate deny.",
  );
});

// kca's start-up checks (cmd.go).
Deno.test("buildPolicy() kubelet-csr-approver's defaults", () => {
  const { policy, warnings } = buildPolicy({}, (k, m) => new Error(`${k}: ${m}`));
  assert.equal(policy.providerRegex, ".*");
  assert.deepEqual(policy.prefixes.map((p) => p.text), ["0.0.0.0/0", "::/0"]);
  assert.equal(policy.maxExpirationSeconds, 31708800);
  assert.equal(policy.allowedDnsNames, 1);
  assert.equal(policy.bypassDnsResolution, false);
  assert.equal(policy.bypassHostnameCheck, false);
  assert.equal(policy.ignoreNonSystemNode, false);
  assert.equal(policy.skipDenyStep, false);
  assert.deepEqual(warnings, []);
});

const START_UP: { what: string; s: PolicySettings; err?: string; warning?: string }[] = [
  {
    what: "empty regex",
    s: { providerRegex: "" },
    err: "the provider-spefic regex must be specified",
  },
  {
    what: "lookahead regex",
    s: { providerRegex: "a(?=b)" },
    err: "invalid or unsupported Perl syntax",
  },
  { what: "unclosed class", s: { providerRegex: "[a-" }, err: "missing closing ]" },
  {
    what: "prefix with a space",
    s: { providerIpPrefixes: "192.168.0.0/16, fc00::/7" },
    err: "Unable to parse IP prefix:  fc00::/7",
  },
  {
    what: "help text's fc00/7",
    s: { providerIpPrefixes: "fc00/7" },
    err: "Unable to parse IP prefix: fc00/7",
  },
  {
    what: "bits too large",
    s: { providerIpPrefixes: "10.0.0.0/33" },
    err: "Unable to parse IP prefix",
  },
  {
    what: "leading zero bits",
    s: { providerIpPrefixes: "10.0.0.0/08" },
    err: "Unable to parse IP prefix",
  },
  {
    what: "leading zero octet",
    s: { providerIpPrefixes: "010.0.0.0/8" },
    err: "Unable to parse IP prefix",
  },
  { what: "zone", s: { providerIpPrefixes: "fe80::%eth0/64" }, err: "Unable to parse IP prefix" },
  {
    what: "negative max expiration",
    s: { maxExpirationSeconds: -1 },
    err: "the maximum expiration seconds cannot be lower than 0 nor greater than 367 days",
  },
  { what: "368 days", s: { maxExpirationSeconds: 368 * 86400 }, err: "nor greater than 367 days" },
  {
    what: "0 DNS names (warned, used anyway)",
    s: { allowedDnsNames: 0 },
    warning: "the number of allowed DNS names must be at least 1 and no more than 1000",
  },
  { what: "1001 DNS names", s: { allowedDnsNames: 1001 }, warning: "no more than 1000" },
  { what: "1000 DNS names", s: { allowedDnsNames: 1000 } },
  { what: "367 days", s: { maxExpirationSeconds: 367 * 86400 } },
];

for (const row of START_UP) {
  Deno.test(`buildPolicy() start-up check: ${row.what}`, () => {
    const build = () => buildPolicy(row.s, (k, m) => new Error(`${k}: ${m}`));
    if (row.err) {
      assert.throws(build, (e: unknown) => (e as Error).message.includes(row.err!));
    } else {
      const { warnings } = build();
      if (row.warning) assert.ok(warnings[0]?.includes(row.warning), warnings.join());
      else assert.deepEqual(warnings, []);
    }
  });
}

Deno.test("parsePrefix() and prefixContains() as netip and netipx", () => {
  const p = parsePrefix("192.168.1.1/16")!; // not masked: ParsePrefix keeps it, Contains masks
  assert.ok(prefixContains(p, new Uint8Array([192, 168, 200, 1])));
  assert.ok(!prefixContains(p, new Uint8Array([192, 169, 0, 1])));
  const v6 = parsePrefix("fc00::/7")!;
  assert.ok(prefixContains(v6, parsePrefix("fd12::1/128")!.addr));
  assert.ok(!prefixContains(v6, new Uint8Array([192, 168, 0, 1]))); // other family
  assert.ok(prefixContains(parsePrefix("0.0.0.0/0")!, new Uint8Array([9, 9, 9, 9])));
  assert.equal(parsePrefix("1.2.3.4"), undefined);
});

Deno.test("parsePolicyFile() reads the helm value names and refuses unknown keys by name", () => {
  const s = parsePolicyFile(
    "providerRegex: '^x$'\nproviderIpPrefixes: [10.0.0.0/8, 'fc00::/7']\nmaxExpirationSeconds: 600\n" +
      "bypassDnsResolution: true\nhosts: {a.example: 10.0.0.1, b.example: [10.0.0.2]}\n",
    "p.yaml",
  );
  assert.deepEqual(s, {
    providerRegex: "^x$",
    providerIpPrefixes: "10.0.0.0/8,fc00::/7",
    maxExpirationSeconds: 600,
    bypassDnsResolution: true,
    hosts: { "a.example": ["10.0.0.1"], "b.example": ["10.0.0.2"] },
  });
  assert.throws(
    () => parsePolicyFile("providerRegexp: x\n", "p.yaml"),
    (e: unknown) =>
      e instanceof InputError && e.message.includes('unknown policy key "providerRegexp"'),
  );
  assert.throws(
    () => parsePolicyFile("allowedDnsNames: two\n", "p.yaml"),
    (e: unknown) =>
      e instanceof InputError && e.message === "p.yaml: allowedDnsNames must be a whole number",
  );
  assert.throws(() => parsePolicyFile("a: [unclosed\n", "p.yaml"), InputError);
});

Deno.test("parseHostsFile() reads hosts(5) as Go's resolver: comments, aliases, bad lines skipped", () => {
  assert.deepEqual(
    parseHostsFile("# c\n10.0.0.1 Node-1.Example. n1 # x\nbogus name\n::1 v6\n010.1.1.1 z\n"),
    { "node-1.example": ["10.0.0.1"], n1: ["10.0.0.1"], v6: ["::1"] },
  );
});
