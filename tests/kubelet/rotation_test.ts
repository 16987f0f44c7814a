import assert from "node:assert/strict";
import {
  certSatisfiesTemplate,
  rotationDeadline,
  rotationWindow,
} from "../../lib/kubelet/rotation.ts";

const H = 3_600_000;
const D = 24 * H;
const now = Date.parse("2026-11-22T00:00:00Z");

// certificate_manager_test.go TestSetRotationDeadline (jitter pinned to 0.7·total)
const DEADLINES: { name: string; nb: number; na: number; shouldRotate: boolean }[] = [
  { name: "just issued, still good", nb: now - H, na: now + 99 * H, shouldRotate: false },
  { name: "half way expired, still good", nb: now - 24 * H, na: now + 24 * H, shouldRotate: false },
  { name: "mostly expired, still good", nb: now - 69 * H, na: now + 31 * H, shouldRotate: false },
  {
    name: "just about expired, should rotate",
    nb: now - 91 * H,
    na: now + 9 * H,
    shouldRotate: true,
  },
  { name: "nearly expired, should rotate", nb: now - 99 * H, na: now + H, shouldRotate: true },
  { name: "already expired, should rotate", nb: now - 10 * H, na: now - H, shouldRotate: true },
  { name: "long duration", nb: now - 180 * D, na: now + 180 * D, shouldRotate: true },
  { name: "short duration", nb: now - 30_000, na: now + 30_000, shouldRotate: true },
];
for (const c of DEADLINES) {
  Deno.test(`rotationDeadline() ${c.name}`, () => {
    const nb = new Date(c.nb), na = new Date(c.na);
    const total = c.na - c.nb;
    assert.equal(rotationDeadline(nb, na, 0).getTime(), c.nb + Math.round(0.7 * total));
    const w = rotationWindow(nb, na);
    assert.equal(w.start.getTime(), c.nb + Math.round(0.7 * total));
    assert.equal(w.end.getTime(), c.nb + Math.round(0.9 * total));
    for (const r of [0, 0.25, 0.5, 0.999]) {
      const d = rotationDeadline(nb, na, r).getTime();
      assert.ok(d >= w.start.getTime() && d <= w.end.getTime());
    }
    // upstream's shouldRotate column is informational (not asserted there either)
    void c.shouldRotate;
  });
}

Deno.test("rotationWindow() of a 1-year cert is about 255.5 to 328.5 days", () => {
  const w = rotationWindow(new Date(now), new Date(now + 365 * D));
  assert.equal((w.start.getTime() - now) / D, 255.5);
  assert.equal((w.end.getTime() - now) / D, 328.5);
});

// TestCertSatisfiesTemplate
const cn = "system:node:fake-node-name";
const base = { commonName: cn, organization: [], dns: [], ips: [] };
const TEMPLATES = [
  { name: "No certificate, no template", cert: undefined, tpl: undefined, want: false },
  { name: "No certificate", cert: undefined, tpl: {}, want: false },
  { name: "No template", cert: base, tpl: undefined, want: true },
  {
    name: "Mismatched common name",
    cert: { ...base, commonName: cn + "-2" },
    tpl: { commonName: cn },
    want: false,
  },
  {
    name: "Missing orgs in certificate",
    cert: { ...base, organization: ["system:nodes"] },
    tpl: { organization: ["system:nodes", "foobar"] },
    want: false,
  },
  {
    name: "Extra orgs in certificate",
    cert: { ...base, organization: ["system:nodes", "foobar"] },
    tpl: { organization: ["system:nodes"] },
    want: true,
  },
  {
    name: "Missing DNS names",
    cert: { ...base, dns: ["foo.example.com"] },
    tpl: { dns: ["foo.example.com", "bar.example.com"] },
    want: false,
  },
  {
    name: "Extra DNS names",
    cert: { ...base, dns: ["foo.example.com", "bar.example.com"] },
    tpl: { dns: ["foo.example.com"] },
    want: true,
  },
  {
    name: "Missing IPs",
    cert: { ...base, ips: ["192.168.1.1"] },
    tpl: { ips: ["192.168.1.1", "192.168.1.2"] },
    want: false,
  },
  {
    name: "Extra IPs",
    cert: { ...base, ips: ["192.168.1.1", "192.168.1.2"] },
    tpl: { ips: ["192.168.1.1"] },
    want: true,
  },
  {
    name: "Matching certificate",
    cert: { commonName: cn, organization: ["system:nodes"], dns: ["a"], ips: ["1.1.1.1"] },
    tpl: { commonName: cn, organization: ["system:nodes"], dns: ["a"], ips: ["1.1.1.1"] },
    want: true,
  },
];
for (const c of TEMPLATES) {
  Deno.test(`certSatisfiesTemplate() ${c.name}`, () => {
    assert.equal(certSatisfiesTemplate(c.cert, c.tpl), c.want);
  });
}
