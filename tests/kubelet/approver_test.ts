import assert from "node:assert/strict";
import {
  type CsrFacts,
  isKubeletClientCSR,
  isKubeletServingCSR,
  isNodeClientCert,
  isSelfNodeClientCert,
  keyStrengthProblem,
  recognize,
  validAPIServerClientUsages,
  validateKubeletClientCSR,
  validateKubeletServingCSR,
  validateMLDSAKeyUsages,
} from "../../lib/kubelet/approver.ts";
import { emptySans, type Sans } from "../../lib/pki/pkix.ts";

function facts(
  cn: string,
  orgs: string[],
  sans: Partial<Sans> = {},
  key = { type: "ECDSA", bits: 256 },
): CsrFacts {
  return {
    subject: { commonName: cn, organization: orgs },
    sans: { ...emptySans(), ...sans },
    key,
  };
}

// sarapprove_test.go TestRecognizers: each case runs with both base usage sets.
const BASE_USAGES = [
  ["key encipherment", "digital signature", "client auth"],
  ["digital signature", "client auth"],
];
interface Rec {
  name: string;
  cn?: string;
  orgs?: string[];
  extraUsage?: string;
  signer?: string;
  requester?: string;
  node: boolean;
  self: boolean;
}
const RECOGNIZERS: Rec[] = [
  { name: "good", node: true, self: true },
  { name: "bad-1", cn: "mike", node: false, self: false },
  { name: "bad-2", orgs: [], node: false, self: false },
  { name: "bad-3", orgs: ["system:master"], node: false, self: false },
  { name: "bad-4", extraUsage: "server auth", node: false, self: false },
  { name: "bad-5", signer: "example.com/not-correct", node: false, self: false },
  { name: "bad-6", signer: "kubernetes.io/kubelet-serving", node: false, self: false },
  { name: "diffCN-1", requester: "joe", node: true, self: false },
  { name: "diffCN-2", cn: "system:node:bar", node: true, self: false },
];

for (const usages of BASE_USAGES) {
  for (const c of RECOGNIZERS) {
    Deno.test(`isNodeClientCert() ${c.name} with usages ${usages.join("/")}`, () => {
      const csr = facts(c.cn ?? "system:node:foo", c.orgs ?? ["system:nodes"]);
      const obj = {
        signerName: c.signer ?? "kubernetes.io/kube-apiserver-client-kubelet",
        usages: c.extraUsage ? [...usages, c.extraUsage] : usages,
        username: c.requester ?? "system:node:foo",
      };
      assert.equal(isNodeClientCert(obj, csr), c.node);
      assert.equal(isSelfNodeClientCert(obj, csr), c.self);
      const want = [...(c.self ? ["selfnodeclient"] : []), ...(c.node ? ["nodeclient"] : [])];
      assert.deepEqual(recognize(obj, csr), want);
    });
  }
}

// defaults_test.go TestIsKubeletClientCSR
const CLIENT = ["digital signature", "key encipherment", "client auth"];
const CLIENT_NO_RSA = ["digital signature", "client auth"];
const clientBase = () => facts("system:node:nodename", ["system:nodes"]);
const CLIENT_CASES: { name: string; csr: CsrFacts; usages: string[]; want: boolean }[] = [
  { name: "defaults", csr: clientBase(), usages: CLIENT, want: true },
  {
    name: "org not system:nodes",
    csr: facts("system:node:nodename", ["not-system:nodes"]),
    usages: CLIENT,
    want: false,
  },
  {
    name: "dnsName set",
    csr: facts("system:node:nodename", ["system:nodes"], { dns: ["something"] }),
    usages: CLIENT,
    want: false,
  },
  {
    name: "emailAddress set",
    csr: facts("system:node:nodename", ["system:nodes"], { emails: ["something"] }),
    usages: CLIENT,
    want: false,
  },
  {
    name: "uri SAN set",
    csr: facts("system:node:nodename", ["system:nodes"], { uris: ["http://something"] }),
    usages: CLIENT,
    want: false,
  },
  {
    name: "ipAddress set",
    csr: facts("system:node:nodename", ["system:nodes"], { ips: ["0.0.0.0"] }),
    usages: CLIENT,
    want: false,
  },
  {
    name: "CN without prefix",
    csr: facts("not-prefixed", ["system:nodes"]),
    usages: CLIENT,
    want: false,
  },
  {
    name: "unexpected usage",
    csr: clientBase(),
    usages: [...CLIENT, "server auth"],
    want: false,
  },
  {
    name: "missing expected usage",
    csr: clientBase(),
    usages: ["key encipherment", "client auth"],
    want: false,
  },
  {
    name: "missing usage, no-RSA variant",
    csr: clientBase(),
    usages: ["client auth"],
    want: false,
  },
  {
    name: "default without key encipherment",
    csr: clientBase(),
    usages: CLIENT_NO_RSA,
    want: true,
  },
];
for (const c of CLIENT_CASES) {
  Deno.test(`isKubeletClientCSR() ${c.name}`, () => {
    assert.equal(isKubeletClientCSR(c.csr, c.usages), c.want);
  });
}

// defaults_test.go TestIsKubeletServingCSR
const SERVER = ["digital signature", "key encipherment", "server auth"];
const SERVER_NO_RSA = ["digital signature", "server auth"];
const serverFacts = (over: { cn?: string; orgs?: string[]; sans?: Partial<Sans> } = {}) =>
  facts(over.cn ?? "system:node:requester-name", over.orgs ?? ["system:nodes"], {
    dns: ["node-server-name"],
    ips: ["0.0.0.0"],
    ...over.sans,
  }, { type: "Ed25519", bits: 256 });
const SERVING_CASES: { name: string; csr: CsrFacts; usages: string[]; want: boolean }[] = [
  { name: "defaults for kubelet-serving", csr: serverFacts(), usages: SERVER, want: true },
  {
    name: "defaults without key encipherment",
    csr: serverFacts(),
    usages: SERVER_NO_RSA,
    want: true,
  },
  {
    name: "org not system:nodes",
    csr: serverFacts({ orgs: ["not-system:nodes"] }),
    usages: SERVER,
    want: false,
  },
  {
    name: "CN without prefix",
    csr: serverFacts({ cn: "notprefixed" }),
    usages: SERVER,
    want: false,
  },
  { name: "unexpected usage", csr: serverFacts(), usages: [...SERVER, "client auth"], want: false },
  {
    name: "missing expected usage",
    csr: serverFacts(),
    usages: ["key encipherment", "server auth"],
    want: false,
  },
  {
    name: "no dnsNames or ipAddresses",
    csr: serverFacts({ sans: { dns: [], ips: [] } }),
    usages: ["key encipherment", "server auth"],
    want: false,
  },
  {
    name: "URI SAN",
    csr: serverFacts({ sans: { uris: ["http://something"] } }),
    usages: SERVER,
    want: false,
  },
  {
    name: "email SAN",
    csr: serverFacts({ sans: { emails: ["something"] } }),
    usages: SERVER,
    want: false,
  },
];
for (const c of SERVING_CASES) {
  Deno.test(`isKubeletServingCSR() ${c.name}`, () => {
    assert.equal(isKubeletServingCSR(c.csr, c.usages), c.want);
  });
}

Deno.test("validateKubeletClientCSR() returns upstream's messages in upstream's order", () => {
  const u = CLIENT;
  assert.equal(
    validateKubeletClientCSR(facts("x", ["a"], { dns: ["d"] }), u),
    "subject organization is not system:nodes",
  );
  const n = ["system:nodes"];
  assert.equal(
    validateKubeletClientCSR(facts("x", n, { dns: ["d"], ips: ["1.1.1.1"] }), u),
    "DNS subjectAltNames are not allowed",
  );
  assert.equal(
    validateKubeletClientCSR(facts("x", n, { emails: ["e"] }), u),
    "Email subjectAltNames are not allowed",
  );
  assert.equal(
    validateKubeletClientCSR(facts("x", n, { ips: ["1.1.1.1"] }), u),
    "IP subjectAltNames are not allowed",
  );
  assert.equal(
    validateKubeletClientCSR(facts("x", n, { uris: ["u:x"] }), u),
    "URI subjectAltNames are not allowed",
  );
  assert.equal(
    validateKubeletClientCSR(facts("x", n), ["bad"]),
    "subject common name does not begin with system:node:",
  );
  assert.equal(
    validateKubeletClientCSR(facts("system:node:a", n), ["client auth"]),
    "usages did not match [client auth digital signature key encipherment]",
  );
  assert.equal(
    validateKubeletClientCSR(facts("system:node:a", n, {}, { type: "ML-DSA-65", bits: 0 }), u),
    "validating usages for ml-dsa key: usage key encipherment cannot be used with an ML-DSA signed certificate request",
  );
});

Deno.test("validateKubeletServingCSR() checks the CN last", () => {
  const n = ["system:nodes"];
  assert.equal(
    validateKubeletServingCSR(facts("x", n), SERVER),
    "DNS or IP subjectAltName is required",
  );
  assert.equal(
    validateKubeletServingCSR(facts("x", n, { dns: ["a"] }), ["server auth"]),
    "usages did not match [digital signature key encipherment server auth]",
  );
  assert.equal(
    validateKubeletServingCSR(facts("x", n, { dns: ["a"] }), SERVER),
    "subject common name does not begin with system:node:",
  );
  assert.equal(
    validateKubeletServingCSR(facts("x", n, { dns: ["a"], emails: ["e"] }), SERVER),
    "Email subjectAltNames are not allowed",
  );
});

Deno.test("validAPIServerClientUsages() allows only client auth plus optional DS/KE", () => {
  const f = facts("hello-world", ["some-org"]);
  assert.equal(
    validAPIServerClientUsages(f, ["client auth", "digital signature", "key encipherment"]),
    undefined,
  );
  assert.equal(
    validAPIServerClientUsages(f, [
      "server auth",
      "client auth",
      "digital signature",
      "key encipherment",
    ]),
    "invalid usage for client certificate: server auth",
  );
  assert.equal(
    validAPIServerClientUsages(f, ["digital signature"]),
    "missing required usage for client certificate: client auth",
  );
});

Deno.test("validateMLDSAKeyUsages() joins every error", () => {
  assert.equal(validateMLDSAKeyUsages(["digital signature", "client auth"]), undefined);
  assert.equal(
    validateMLDSAKeyUsages(["key agreement", "client auth"]),
    "usage key agreement cannot be used with an ML-DSA signed certificate request\n" +
      "usages must contain at least one of [cert sign content commitment crl sign digital signature]",
  );
});

// certificate_manager_test.go TestValidateKeyStrength
const STRENGTH: { key: { type: string; bits: number }; wantErr: boolean }[] = [
  { key: { type: "RSA", bits: 1024 }, wantErr: true },
  { key: { type: "ECDSA", bits: 224 }, wantErr: true },
  { key: { type: "RSA", bits: 2048 }, wantErr: false },
  { key: { type: "ECDSA", bits: 256 }, wantErr: false },
];
for (const c of STRENGTH) {
  Deno.test(`keyStrengthProblem() ${c.key.type} ${c.key.bits}`, () => {
    assert.equal(keyStrengthProblem(c.key) !== undefined, c.wantErr);
  });
}

// defaults_test.go v1beta1 signerName defaulting by content (guessSigner uses the
// kubelet's usages for the key type; undefined stands for legacy-unknown).
Deno.test("guessSigner() picks the signer a bare CSR suits, as v1beta1 defaulting does", async () => {
  const { guessSigner } = await import("../../lib/kubelet/signer.ts");
  const n = ["system:nodes"];
  assert.equal(
    guessSigner(facts("system:node:nodename", n)),
    "kubernetes.io/kube-apiserver-client-kubelet",
  );
  assert.equal(guessSigner(serverFacts()), "kubernetes.io/kubelet-serving");
  for (
    const f of [
      facts("system:node:nodename", ["not-system:nodes"]),
      facts("not-prefixed", n),
      facts("system:node:nodename", n, { emails: ["something"] }),
      facts("system:node:nodename", n, { uris: ["http://something"] }),
      serverFacts({ orgs: ["not-system:nodes"] }),
      serverFacts({ cn: "notprefixed" }),
      serverFacts({ sans: { uris: ["http://something"] } }),
      serverFacts({ sans: { emails: ["something"] } }),
    ]
  ) {
    assert.equal(guessSigner(f), undefined);
  }
});

// The organisation rule is `reflect.DeepEqual(Subject.Organization, []string{"system:nodes"})`:
// exactly one value, exactly that string. Each row names the broadened rule it kills.
const ORG_RULE: { orgs: string[]; ok: boolean; kills: string }[] = [
  { orgs: ["system:nodes"], ok: true, kills: "any rule that refuses the kubelet's own CSR" },
  { orgs: ["system:nodes", "system:masters"], ok: false, kills: "orgs.includes(system:nodes)" },
  {
    orgs: ["system:masters", "system:nodes"],
    ok: false,
    kills: "last O / some(o === system:nodes)",
  },
  {
    orgs: ["system:nodes", "system:nodes"],
    ok: false,
    kills: "set equality / every(o === system:nodes)",
  },
  { orgs: [], ok: false, kills: "every(o === system:nodes) (vacuously true on [])" },
  { orgs: ["System:Nodes"], ok: false, kills: "case-insensitive comparison" },
  { orgs: [" system:nodes"], ok: false, kills: "trimming" },
  { orgs: ["system:node"], ok: false, kills: "prefix comparison (system:nodes startsWith o)" },
  { orgs: ["system:nodes2"], ok: false, kills: "o.startsWith(system:nodes)" },
];

Deno.test("organisation rule: exactly [system:nodes] for the approver and both kubelet signers", () => {
  const client = ["digital signature", "client auth"];
  const serving = ["digital signature", "server auth"];
  for (const c of ORG_RULE) {
    const what = `${JSON.stringify(c.orgs)} (kills ${c.kills})`;
    const csr = facts("system:node:w1", c.orgs);
    const servingCsr = facts("system:node:w1", c.orgs, { dns: ["w1.example"] });
    const want = c.ok ? undefined : "subject organization is not system:nodes";
    assert.equal(validateKubeletClientCSR(csr, client), want, what);
    assert.equal(validateKubeletServingCSR(servingCsr, serving), want, what);
    const obj = {
      signerName: "kubernetes.io/kube-apiserver-client-kubelet",
      usages: client,
      username: "system:node:w1",
    };
    assert.equal(isNodeClientCert(obj, csr), c.ok, what);
    assert.equal(isSelfNodeClientCert(obj, csr), c.ok, what);
    assert.deepEqual(recognize(obj, csr), c.ok ? ["selfnodeclient", "nodeclient"] : [], what);
  }
});
