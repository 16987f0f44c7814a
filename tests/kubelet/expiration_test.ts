import assert from "node:assert/strict";
import { parseCertificate } from "../../lib/pki/cert_info.ts";
import {
  expirationInfo,
  expirationText,
  type ExpiryEntry,
  kubeadmExpiryTime,
  needsRenewal,
  parseRenewalThreshold,
} from "../../lib/kubelet/expiration.ts";
import { issue } from "../_kubeadm_tree.ts";

const DAY = 86_400_000;
const start = new Date("2026-01-01T00:00:00Z");

async function leaf(days: number) {
  const i = await issue("leaf", start, new Date(start.getTime() + days * DAY));
  return parseCertificate(new Uint8Array(i.cert.rawData));
}

Deno.test("kubeadmExpiryTime() formats as Go's Jan 02, 2006 15:04 MST in UTC", () => {
  assert.equal(kubeadmExpiryTime(new Date("2020-12-30T23:36:59Z")), "Dec 30, 2020 23:36 UTC");
  assert.equal(kubeadmExpiryTime(new Date("2035-01-05T03:04:00Z")), "Jan 05, 2035 03:04 UTC");
});

Deno.test("expirationText() lays out kubeadm's two tables (reference vector D)", async () => {
  const cert = await leaf(365);
  const ca = await leaf(3650);
  const now = new Date("2026-01-01T00:01:00Z");
  const certs: ExpiryEntry[] = [
    { name: "apiserver-kubelet-client", cert, caName: "ca", externallyManaged: false },
    { name: "admin.conf", cert, caName: "ca", externallyManaged: true },
    { name: "apiserver", caName: "ca", externallyManaged: false },
  ];
  const cas: ExpiryEntry[] = [
    { name: "front-proxy-ca", caName: "", externallyManaged: false },
    { name: "ca", cert: ca, caName: "", externallyManaged: false },
  ];
  const text = expirationText(expirationInfo(certs, cas, now));
  assert.equal(
    text,
    [
      "CERTIFICATE                EXPIRES                  RESIDUAL TIME   CERTIFICATE AUTHORITY   EXTERNALLY MANAGED",
      "admin.conf                 Jan 01, 2027 00:00 UTC   364d            ca                      yes     ",
      "!MISSING! apiserver                                                                         ",
      "apiserver-kubelet-client   Jan 01, 2027 00:00 UTC   364d            ca                      no      ",
      "",
      "CERTIFICATE AUTHORITY      EXPIRES                  RESIDUAL TIME   EXTERNALLY MANAGED",
      "ca                         Dec 30, 2035 00:00 UTC   9y              no      ",
      "!MISSING! front-proxy-ca                                            ",
      "",
    ].join("\n"),
  );
});

Deno.test("expirationInfo() gives the v1alpha3 shape: sorted, residual seconds, caName omitempty, null date when missing", async () => {
  const cert = await leaf(365);
  const now = new Date("2026-12-31T23:59:58.500Z");
  const info = expirationInfo(
    [
      { name: "scheduler.conf", cert, caName: "ca", externallyManaged: false },
      { name: "apiserver", caName: "ca", externallyManaged: false },
    ],
    [{ name: "ca", cert, caName: "", externallyManaged: false }],
    now,
  );
  assert.deepEqual(Object.keys(info), [
    "kind",
    "apiVersion",
    "certificates",
    "certificateAuthorities",
  ]);
  assert.deepEqual(info.certificates, [
    {
      name: "apiserver",
      expirationDate: null,
      residualTime: 0,
      externallyManaged: false,
      caName: "ca",
      missing: true,
    },
    {
      name: "scheduler.conf",
      expirationDate: "2027-01-01T00:00:00Z",
      residualTime: 1,
      externallyManaged: false,
      caName: "ca",
      missing: false,
    },
  ]);
  assert.deepEqual(Object.keys(info.certificateAuthorities[0]!), [
    "name",
    "expirationDate",
    "residualTime",
    "externallyManaged",
    "missing",
  ]);
});

Deno.test("expirationInfo() residual truncates toward zero: -1.9 s prints 0s, -2 s <invalid>", async () => {
  const cert = await leaf(1);
  const end = cert.notAfter.getTime();
  for (
    const [after, want] of [[1900, "0s"], [2000, "<invalid>"], [-59_999, "59s"]] as const
  ) {
    const info = expirationInfo(
      [{ name: "x", cert, caName: "", externallyManaged: false }],
      [],
      new Date(end + after),
    );
    assert.match(expirationText(info), new RegExp(`UTC   ${want.replace(/[<>]/g, ".")}`));
  }
});

Deno.test("expirationInfo() adds the kubelet rotation window [70 %, 90 %) to rotated certificates", async () => {
  const cert = await leaf(100);
  const info = expirationInfo(
    [{
      name: "kubelet-client-current.pem",
      cert,
      caName: "ca",
      externallyManaged: false,
      kubeletRotated: true,
    }],
    [],
    start,
  );
  assert.deepEqual(info.certificates[0]!.rotationWindow, {
    start: "2026-03-12T00:00:00Z",
    end: "2026-04-01T00:00:00Z",
  });
  assert.match(expirationText(info), /KUBELET CERTIFICATE +ROTATES FROM +ROTATES BEFORE\n/);
});

Deno.test("parseRenewalThreshold() takes step's --expires-in values (reference vector E)", () => {
  assert.deepEqual(parseRenewalThreshold("66%"), { kind: "percent", percent: 66, text: "66%" });
  assert.deepEqual(parseRenewalThreshold("0s"), { kind: "duration", ms: 0, text: "0s" });
  assert.equal((parseRenewalThreshold("1h15m") as { ms: number }).ms, 4_500_000);
  for (const bad of ["101%", "1d", "66.5%", "%", "soon"]) {
    assert.throws(() => parseRenewalThreshold(bad), bad);
  }
  assert.throws(() => parseRenewalThreshold("101%"), /value must be in range 0-100%/);
});

Deno.test("needsRenewal() follows step: int(used %) >= threshold, duration >= time left", async () => {
  const cert = await leaf(1000); // 1000 days: 1 % = 10 days
  const at = (days: number) => new Date(start.getTime() + days * DAY);
  const p66 = parseRenewalThreshold("66%");
  const rows: [string, Date, boolean][] = [
    ["66.1 % through", at(661), true],
    // 66.0 % in floating point is 65.999…: int() gives 65, as in step (Go float64).
    ["66 % through", at(660), false],
    ["65.9 % through", at(659), false],
    ["66.9 % through", at(669), true],
    ["expired", at(1001), true],
  ];
  for (const [what, now, want] of rows) assert.equal(needsRenewal(cert, p66, now), want, what);
  const zero = parseRenewalThreshold("0s");
  assert.equal(needsRenewal(cert, zero, at(10)), false, "0s on an unexpired cert");
  assert.equal(needsRenewal(cert, zero, at(1000)), true, "0s at NotAfter");
  const h = parseRenewalThreshold("240h");
  assert.equal(needsRenewal(cert, h, at(990)), true, "exactly 10 days left");
  assert.equal(needsRenewal(cert, h, at(989)), false, "11 days left");
});
