/**
 * mod.ts, the library's public face: every refusal is a JoinkitError of the
 * right class whose reason is the upstream one-line text, with no flag name,
 * no exit code and never the token secret; results are plain data.
 */

import assert from "node:assert/strict";
import * as jk from "../mod.ts";

const TOKEN = "abcdef.0123456789abcdef";
const SECRET = "0123456789abcdef";

const ca = await jk.createCa({ keyType: "ecdsa-p256", now: new Date("2026-01-01T00:00:00Z") });

type Case = [name: string, run: () => unknown, cls: typeof jk.JoinkitError, reason: RegExp];

const CASES: Case[] = [
  [
    "tokenSecret() a malformed token",
    () => jk.tokenSecret("abcdef.0123456789ABCDEF"),
    jk.InvalidInputError,
    /^the bootstrap token must be of the form \[a-z0-9\]\{6\}\.\[a-z0-9\]\{16\} \(value not shown\)$/,
  ],
  [
    "tokenSecret() a ttl Go cannot parse",
    () => jk.tokenSecret(TOKEN, { ttl: "1 day" }),
    jk.InvalidInputError,
    /^invalid duration "1 day"$/,
  ],
  [
    "tokenSecret() kubeadm's group rule",
    () => jk.tokenSecret(TOKEN, { groups: ["admins"] }),
    jk.InvalidInputError,
    /^bootstrapTokens\.0\.groups: Invalid value: \[\]string\{"admins"\}: bootstrap group "admins" is invalid/,
  ],
  [
    "createCa() an empty common name",
    () => jk.createCa({ commonName: "" }),
    jk.InvalidInputError,
    /^the CA's common name must not be empty$/,
  ],
  [
    "caPin() no PEM",
    () => jk.caPin("hello"),
    jk.InvalidInputError,
    /^ca certificate: no certificate found: data does not contain any valid RSA or ECDSA certificates$/,
  ],
  [
    "clusterInfo() a server without https://",
    () => jk.clusterInfo({ server: "10.0.0.1:6443", ca: ca.certificate }),
    jk.InvalidInputError,
    /^invalid server "10\.0\.0\.1:6443": must start with https:\/\//,
  ],
  [
    "clusterInfo() a CA bundle holding a private key",
    () => jk.clusterInfo({ server: "https://10.0.0.1:6443", ca: ca.certificate + ca.privateKey }),
    jk.InvalidInputError,
    /^ca certificate: holds a (EC |)PRIVATE KEY block besides the certificates; refusing to embed it$/,
  ],
  [
    "verifyClusterInfo() the wrong token",
    async () => {
      const cm = await jk.clusterInfo({
        server: "https://10.0.0.1:6443",
        ca: ca.certificate,
        tokens: [TOKEN],
      });
      return jk.verifyClusterInfo({
        clusterInfo: cm,
        token: "abcdef.ffffffffffffffff",
        caCertHashes: [ca.pin],
      });
    },
    jk.CheckFailedError,
    /^couldn't validate the identity of the API Server: /,
  ],
  [
    "verifyCertificate() a malformed signer name",
    () =>
      jk.verifyCertificate({ certificate: ca.certificate, ca: ca.certificate, signerName: "x y" }),
    jk.InvalidInputError,
    /signerName/,
  ],
];

for (const [name, run, cls, reason] of CASES) {
  Deno.test(`${name} throws ${cls.name} with the upstream reason`, async () => {
    let caught: unknown;
    try {
      await run();
    } catch (e) {
      caught = e;
    }
    assert.ok(caught instanceof cls, `${name}: ${caught}`);
    assert.ok(caught instanceof jk.JoinkitError);
    const e = caught as InstanceType<typeof jk.JoinkitError>;
    assert.equal(e.message, e.reason);
    assert.match(e.reason, reason);
    assert.equal(e.reason.includes("\n"), false);
    assert.equal(e.reason.includes(SECRET), false);
    assert.equal(/(^|\s)--[a-z]/.test(e.reason.replace(/unless --usages/, "")), false, e.reason);
    assert.equal("exitCode" in e, false);
  });
}

Deno.test("mod.ts results are plain data: the Secret, the ConfigMap and the report survive JSON", async () => {
  const secret = jk.tokenSecret(TOKEN, { ttl: 0, description: "ci" });
  assert.deepEqual(JSON.parse(JSON.stringify(secret)), secret);
  const cm = await jk.clusterInfo({
    server: "https://10.0.0.1:6443",
    ca: ca.certificate,
    tokens: [TOKEN],
  });
  assert.deepEqual(JSON.parse(JSON.stringify(cm)), cm);
  const report = await jk.verifyCertificate({
    certificate: ca.certificate,
    ca: ca.certificate,
    at: new Date("2026-06-01T00:00:00Z"),
  });
  assert.deepEqual(JSON.parse(JSON.stringify(report)), report);
  assert.equal(report.checks.find((c) => c.check === "validity")?.ok, true);
});

Deno.test("bootstrapKubeconfig() embeds the CA bytes as given and the token, as kubeadm writes it", async () => {
  const yaml = await jk.bootstrapKubeconfig({
    server: "https://cp.example:6443/",
    ca: new TextEncoder().encode(ca.certificate),
    token: TOKEN,
    format: "json",
  });
  const kc = JSON.parse(yaml);
  assert.equal(kc.clusters[0].cluster.server, "https://cp.example:6443");
  assert.equal(atob(kc.clusters[0].cluster["certificate-authority-data"]), ca.certificate);
  assert.deepEqual(kc.users, [{ name: "tls-bootstrap-token-user", user: { token: TOKEN } }]);
  assert.equal(kc["current-context"], "tls-bootstrap-token-user@kubernetes");
});

Deno.test("sealSecret() refuses a controller certificate without an RSA key in kubeseal's words", async () => {
  await assert.rejects(
    jk.sealSecret(jk.tokenSecret(TOKEN), { certificate: ca.certificate }),
    (e: unknown) =>
      e instanceof jk.InvalidInputError &&
      /^expected RSA public key but found ECDSA P-256 key$/.test(e.reason),
  );
});

Deno.test("encryptSecret() refuses a malformed age recipient, and no recipient at all", async () => {
  await assert.rejects(
    jk.encryptSecret(jk.tokenSecret(TOKEN), ["age1nope"]),
    (e: unknown) =>
      e instanceof jk.InvalidInputError && /^malformed recipient "age1nope"/.test(e.reason),
  );
  await assert.rejects(jk.encryptSecret(jk.tokenSecret(TOKEN), []), jk.InvalidInputError);
});

Deno.test("goRegexp() matches as Go's MatchString and refuses what regexp.Compile refuses, in Go's words", () => {
  const re = jk.goRegexp(String.raw`^ip-\d+\.ec2\.internal$`);
  assert.equal(re.test("ip-10.ec2.internal"), true);
  assert.equal(re.test("ip-10.ec2.internal.evil"), false);
  assert.throws(
    () => jk.goRegexp("a(?=b)"),
    (e: unknown) =>
      e instanceof jk.InvalidInputError &&
      /^error parsing regexp: invalid or unsupported Perl syntax: `\(\?=`$/.test(e.reason),
  );
});

Deno.test("controlPlanePki() keeps a CA given as existing and signs the leaves with it", async () => {
  const pki = await jk.controlPlanePki({
    nodeName: "cp-1",
    advertiseAddress: "10.0.0.10",
    encryptionAlgorithm: "ECDSA-P256",
    existing: { "pki/ca.crt": ca.certificate, "pki/ca.key": ca.privateKey },
    now: new Date("2026-01-01T00:00:00Z"),
  });
  const paths = pki.files.map((f) => f.path);
  assert.equal(paths.includes("pki/ca.crt"), false);
  assert.equal(paths.includes("pki/ca.key"), false);
  const apiserver = pki.files.find((f) => f.path === "pki/apiserver.crt")!;
  const report = await jk.verifyCertificate({
    certificate: apiserver.data,
    ca: ca.certificate,
    at: new Date("2026-06-01T00:00:00Z"),
  });
  assert.equal(report.checks.find((c) => c.check === "chain")?.ok, true);
  for (const f of pki.files) assert.equal(f.mode, f.path.endsWith(".crt") ? 0o644 : 0o600, f.path);
});
