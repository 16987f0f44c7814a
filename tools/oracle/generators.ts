/**
 * Hostile input generators for the oracle: certificate-set specs the Go
 * program builds (gen), CSR specs (gencsr), odd PEM, odd RFC 3339 times and
 * multi-cluster kubeconfigs. Everything is driven by a seeded {@link Rng}.
 *
 * @module
 */

import {
  type Attr,
  b64,
  CN,
  hex,
  name,
  O,
  oddValue,
  oid,
  OU,
  type Rng,
  seq,
  tlv,
  utf8,
} from "./der.ts";

// deno-lint-ignore no-explicit-any
export type Spec = Record<string, any>;

export const T = {
  past: "2018-01-01T00:00:00Z",
  start: "2020-01-01T00:00:00Z",
  expired: "2024-01-01T00:00:00Z",
  now: "2025-06-01T00:00:00Z",
  future: "2026-01-01T00:00:00Z",
  end: "2030-01-01T00:00:00Z",
};

const CA_KEYS = [
  "p256:0",
  "p256:1",
  "p256:2",
  "p256:3",
  "rsa2048:0",
  "rsa2048:1",
  "p384:0",
  "p521:0",
  "ed25519:0",
];
const RARE_KEYS = ["rsa1024:0", "rsa512:0", "p224:0"];
const LEAF_KEYS = ["p256:4", "p256:5", "rsa2048:2", "ed25519:1", "p384:1", "p521:1"];

const DNS = [
  "example.com",
  "foo.example.com",
  "bar.example.com",
  "*.example.com",
  "a.b.example.com",
  "bar.com",
  "foo.com",
  "sub.foo.example.com",
  "EXAMPLE.COM",
  "exa_mple.com",
  "example.com.",
  "*.foo.example.com",
  "localhost",
  "kubernetes.default.svc",
  "x--y.example.com",
  "*",
];
const IPS = ["10.0.0.1", "192.168.1.1", "2000:abcd::1", "::1", "127.0.0.1", "10.1.2.3"];
const EMAILS = ["foo@example.com", "bar@sub.example.com", "root@foo.com", "x@EXAMPLE.com"];
const URIS = [
  "https://foo.example.com/x",
  "spiffe://example.com/ns/a",
  "https://bar.com:8443/",
  "urn:x",
];
const NC_DNS = [
  "example.com",
  ".example.com",
  "foo.example.com",
  ".foo.example.com",
  "foo.com",
  "bar.com",
  "",
];
const NC_IP = ["10.0.0.0/8", "192.168.0.0/16", "2000:abcd::/32", "127.0.0.0/8"];
const NC_EMAIL = ["foo@example.com", "example.com", ".example.com", "foo.com"];
const NC_URI = ["foo.example.com", ".example.com", "bar.com"];
const EKUS = ["ServerAuth", "ClientAuth", "EmailProtection", "CodeSigning", "Any", "OCSPSigning"];

const KU = { digitalSignature: 1, keyEncipherment: 4, certSign: 32, crlSign: 64 };

function sigAlgFor(r: Rng, key: string): { sigAlg?: string; post?: Spec } {
  const rsa = key.startsWith("rsa");
  const ec = key.startsWith("p");
  const x = r.int(20);
  if (rsa) {
    if (x === 0) return { sigAlg: "SHA1-RSA" };
    if (x === 1) return { post: { hash: "MD5", algHex: "300d06092a864886f70d0101040500" } };
    if (x === 2) return { sigAlg: "SHA256-RSAPSS" };
    if (x === 3) return { sigAlg: "SHA384-RSA" };
    if (x === 4) {
      // RSA-PSS SHA-256 with salt 20: Go cannot verify it.
      return {
        post: {
          hash: "SHA256",
          pssSalt: 20,
          algHex:
            "304106092a864886f70d01010a3034a00f300d06096086480165030402010500a11c301a06092a864886f70d010108300d06096086480165030402010500a203020114",
        },
      };
    }
    // RSA-PSS with each hash Go creates (salt = hash length).
    if (x === 5) return { sigAlg: "SHA384-RSAPSS" };
    if (x === 6) return { sigAlg: "SHA512-RSAPSS" };
  }
  if (ec && x === 0) return { sigAlg: "ECDSA-SHA1" };
  if (ec && x === 1) return { sigAlg: "ECDSA-SHA512" };
  // A digest shorter or longer than the curve's order: Go truncates, and a P-521 CA signing
  // with SHA-256 once broke joinkit (Go itself picks SHA-512 for P-521 by default).
  if (ec && (x === 2 || key.startsWith("p521") && x < 8)) {
    return { sigAlg: r.pick(["ECDSA-SHA256", "ECDSA-SHA384", "ECDSA-SHA1"]) };
  }
  return {};
}

/** Extensions Go would not make: negative pathLen, unknown critical, duplicates. */
function oddExtensions(r: Rng, isCA: boolean): Spec[] {
  const out: Spec[] = [];
  if (r.chance(0.015)) {
    out.push({
      oid: "2.5.29.19",
      critical: true,
      value: b64(
        seq(tlv(0x01, Uint8Array.of(0xff)), tlv(0x02, Uint8Array.of(r.pick([0xff, 0x80])))),
      ),
    });
  }
  if (r.chance(0.05)) {
    out.push({ oid: "1.2.3.4.5", critical: true, value: b64(tlv(0x05, new Uint8Array())) });
  }
  if (r.chance(0.03)) {
    out.push({ oid: "1.2.3.4.6", critical: false, value: b64(tlv(0x05, new Uint8Array())) });
  }
  if (r.chance(0.02)) {
    const skid = b64(tlv(0x04, Uint8Array.of(1, 2, 3)));
    out.push({ oid: "2.5.29.14", critical: false, value: skid }, {
      oid: "2.5.29.14",
      critical: false,
      value: skid,
    });
  }
  if (r.chance(0.03)) {
    // A SAN with raw entries: high bytes, otherName only, bad IP length.
    const entries = r.pick([
      [tlv(0x82, Uint8Array.of(0x61, 0xe9, 0x2e, 0x63, 0x6f, 0x6d))],
      [tlv(0x82, utf8("a\u0000b.example.com"))],
      [tlv(0xa0, seq(oid("1.2.3.4"), tlv(0xa0, tlv(0x0c, utf8("x")))))],
      [tlv(0x87, Uint8Array.of(10, 0, 0))],
      [tlv(0x81, Uint8Array.of(0x66, 0xff, 0x40, 0x78))],
      [tlv(0x86, utf8("https://exa mple.com/"))],
      [tlv(0x82, utf8("foo.example.com")), tlv(0x82, utf8("foo.example.com"))],
    ]);
    out.push({ oid: "2.5.29.17", critical: r.chance(0.3), value: b64(seq(...entries)) });
  }
  if (isCA && r.chance(0.02)) {
    // Key usage with no bits set: imposes nothing.
    out.push({ oid: "2.5.29.15", critical: true, value: b64(tlv(0x03, Uint8Array.of(0))) });
  }
  return out;
}

function oddSubject(r: Rng, cn: string): string | undefined {
  if (!r.chance(0.12)) return undefined;
  const rdns: Attr[][] = [];
  if (r.chance(0.3)) rdns.push([[O, ...oddValue(r, "system:nodes")]]);
  rdns.push([[CN, ...oddValue(r, cn)]]);
  if (r.chance(0.2)) rdns.push([[CN, 0x0c, utf8(cn + "-second")]]);
  if (r.chance(0.1)) rdns.push([[OU, 0x02, Uint8Array.of(5)]]);
  if (r.chance(0.05)) rdns.push([]);
  return b64(name(rdns));
}

/** One certificate spec with the fields common to CAs and leaves. */
function certSpec(r: Rng, _i: number, key: string, issuer: number, cn: string, ca: boolean): Spec {
  const s: Spec = { key, issuer, cn, notBefore: T.start, notAfter: T.end };
  const v = r.int(30);
  if (v === 0) s.notAfter = T.expired;
  if (v === 1) s.notBefore = T.future;
  if (v === 2) s.notAfter = T.now;
  if (v === 3) s.notBefore = T.now;
  if (r.chance(0.2)) s.o = r.some(["system:nodes", "system:masters", "Acme"], 0.5);
  const subj = oddSubject(r, cn);
  if (subj) s.subjectDer = subj;
  if (ca) {
    s.bcValid = !r.chance(0.04);
    s.isCA = !r.chance(0.05);
    if (r.chance(0.25)) {
      s.maxPathLen = r.int(3);
      s.maxPathLenZero = s.maxPathLen === 0;
    } else s.maxPathLen = -1;
    s.keyUsage = r.chance(0.9)
      ? KU.certSign | KU.crlSign | (r.chance(0.5) ? KU.digitalSignature : 0)
      : KU.digitalSignature;
    if (r.chance(0.15)) s.eku = r.some(EKUS, 0.4);
    if (r.chance(0.25)) {
      const nc = r.int(4);
      const perm = r.chance(0.5);
      const list = [NC_DNS, NC_IP, NC_EMAIL, NC_URI][nc]!;
      const key = ["DNS", "IP", "Email", "URI"][nc]!;
      s[(perm ? "permitted" : "excluded") + key] = r.some(list, 0.35).slice(0, 3);
      if (!s[(perm ? "permitted" : "excluded") + key].length) {
        s[(perm ? "permitted" : "excluded") + key] = [r.pick(list)];
      }
      if (r.chance(0.2)) s["excludedDNS"] = [r.pick(NC_DNS)];
      s.ncCritical = r.chance(0.7);
    }
  } else {
    if (r.chance(0.85)) s.dns = r.some(DNS, 0.2);
    if (r.chance(0.2)) s.ips = r.some(IPS, 0.3);
    if (r.chance(0.1)) s.emails = r.some(EMAILS, 0.4);
    if (r.chance(0.08)) s.uris = r.some(URIS, 0.4);
    if (r.chance(0.7)) s.eku = r.some(EKUS.slice(0, 4), 0.5);
    if (r.chance(0.05)) s.unknownEku = ["1.2.3.4.99"];
    s.keyUsage = r.chance(0.8) ? KU.digitalSignature | KU.keyEncipherment : 0;
    if (r.chance(0.1)) {
      s.bcValid = true;
      s.isCA = r.chance(0.5);
      s.maxPathLen = -1;
    }
  }
  const extra = oddExtensions(r, ca);
  if (extra.length) s.extra = extra;
  Object.assign(s, sigAlgFor(r, issuer >= 0 ? "" : key));
  return s;
}

/** A chain case: a certificate set plus who plays which part, and the verify options. */
export interface ChainCase {
  certs: Spec[];
  roles: ("root" | "inter" | "leaf" | "none")[];
  time: string;
  keyUsages: string[];
  dnsName: string;
}

export function chainCase(r: Rng): ChainCase {
  const certs: Spec[] = [];
  const roles: ChainCase["roles"] = [];
  const caKey = () => (r.chance(0.05) ? r.pick(RARE_KEYS) : r.pick(CA_KEYS));
  const rootKey = caKey();
  const root = certSpec(r, 0, rootKey, -1, "Root CA", true);
  if (r.chance(0.03)) {
    root.post = { ...(root.post ?? {}), v1: true, hash: root.post?.hash ?? "SHA256" };
  }
  certs.push(root);
  roles.push("root");
  // Same subject and key, another validity: a renewal next to an expired CA.
  if (r.chance(0.1)) {
    certs.push({ ...root, notAfter: r.pick([T.expired, T.end]), serial: "77" });
    roles.push(r.chance(0.8) ? "root" : "inter");
  }
  let parent = 0;
  const depth = r.pick([0, 1, 1, 1, 2, 2, 3]);
  for (let d = 0; d < depth; d++) {
    const key = caKey();
    const inter = certSpec(r, certs.length, key, parent, `Intermediate ${d}`, true);
    Object.assign(inter, sigAlgFor(r, certs[parent]!.key));
    if (r.chance(0.03)) {
      inter.post = { ...(inter.post ?? {}), v1: true, hash: inter.post?.hash ?? "SHA256" };
    }
    if (r.chance(0.03)) {
      inter.post = {
        ...(inter.post ?? {}),
        spkiFrom: r.pick(["rsaEvenE", "rsaEvenN"]),
        hash: inter.post?.hash ?? "SHA256",
      };
    }
    certs.push(inter);
    roles.push(r.chance(0.95) ? "inter" : "none");
    const idx = certs.length - 1;
    // A second copy (other constraints or validity) or a cross-sign by a second root.
    if (r.chance(0.12)) {
      const twin = certSpec(r, certs.length, key, parent, `Intermediate ${d}`, true);
      twin.serial = String(100 + d);
      if (inter.subjectDer) twin.subjectDer = inter.subjectDer;
      certs.push(twin);
      roles.push("inter");
    } else if (r.chance(0.08)) {
      const root2 = certSpec(r, certs.length, caKey(), -1, "Other Root", true);
      certs.push(root2);
      roles.push(r.chance(0.5) ? "root" : "none");
      const cross = certSpec(r, certs.length, key, certs.length - 1, `Intermediate ${d}`, true);
      if (inter.subjectDer) cross.subjectDer = inter.subjectDer;
      cross.serial = String(200 + d);
      certs.push(cross);
      roles.push("inter");
    }
    parent = idx;
  }
  const leafKey = r.chance(0.05) ? r.pick(RARE_KEYS) : r.pick(LEAF_KEYS);
  const leaf = certSpec(
    r,
    certs.length,
    leafKey,
    parent,
    r.pick(["leaf", "example.com", "system:node:n1"]),
    false,
  );
  Object.assign(leaf, sigAlgFor(r, certs[parent]!.key));
  if (r.chance(0.02)) {
    leaf.post = { ...(leaf.post ?? {}), v1: true, hash: leaf.post?.hash ?? "SHA256" };
  }
  certs.push(leaf);
  roles.push("leaf");
  if (r.chance(0.03)) roles[0] = "none"; // no root given
  const time = r.chance(0.9)
    ? T.now
    : r.pick([T.start, T.end, T.expired, T.future, T.past, "2035-01-01T00:00:00Z"]);
  const keyUsages = r.pick([[], [], ["ClientAuth"], ["Any"], ["ServerAuth", "ClientAuth"], [
    "EmailProtection",
  ]]);
  const dnsName = r.chance(0.25)
    ? r.pick([
      ...DNS.filter((d) => !d.startsWith("*")),
      ...IPS,
      "[::1]",
      "FOO.example.com",
      "foo.bar.example.com",
    ])
    : "";
  return { certs, roles, time, keyUsages, dnsName };
}

/** A spec set whose certificates feed the cert judgement (before mutation). */
export function certSet(r: Rng): Spec[] {
  return chainCase(r).certs;
}

/** A CSR spec. */
export function csrSpec(r: Rng): Spec {
  const key = r.chance(0.1) ? r.pick(RARE_KEYS) : r.pick([...CA_KEYS, ...LEAF_KEYS]);
  const s: Spec = { key, cn: r.pick(["system:node:n1", "admin", "x", ""]) };
  if (r.chance(0.6)) {
    s.o = r.pick([["system:nodes"], ["system:masters"], ["system:nodes", "system:masters"], []]);
  }
  const subj = oddSubject(r, s.cn);
  if (subj) s.subjectDer = subj;
  if (r.chance(0.5)) s.dns = r.some(DNS, 0.2);
  if (r.chance(0.3)) s.ips = r.some(IPS, 0.3);
  if (r.chance(0.1)) s.emails = r.some(EMAILS, 0.3);
  if (r.chance(0.05)) s.uris = r.some(URIS, 0.3);
  const extra = oddExtensions(r, false).filter((e) => e.oid !== "2.5.29.19");
  if (r.chance(0.03)) {
    extra.push({ oid: "2.5.29.17", critical: false, value: b64(seq(tlv(0x82, utf8("a.com")))) });
  }
  if (extra.length) s.extra = extra;
  Object.assign(s, sigAlgFor(r, key));
  if (key.startsWith("rsa") && r.chance(0.05)) {
    s.post = {
      ...(s.post ?? {}),
      spkiFrom: r.pick(["rsaEvenE", "rsaEvenN", "rsaE1"]),
      hash: s.post?.hash ?? "SHA256",
    };
  }
  return s;
}

// ---- RFC 3339 ----

const pad = (n: number, w: number) => String(n).padStart(w, "0");

export function rfc3339Case(r: Rng): string {
  const y = r.chance(0.7) ? 1970 + r.int(200) : r.int(10000);
  const mo = r.chance(0.95) ? 1 + r.int(12) : r.int(14);
  const d = r.chance(0.9) ? 1 + r.int(28) : r.pick([0, 29, 30, 31, 32]);
  const h = r.chance(0.95) ? r.int(24) : r.pick([24, 25, 99]);
  const mi = r.chance(0.95) ? r.int(60) : r.pick([60, 61]);
  const s = r.chance(0.95) ? r.int(60) : r.pick([60, 61, 99]);
  let frac = "";
  if (r.chance(0.3)) {
    frac = (r.chance(0.9) ? "." : ",") +
      Array.from({ length: r.int(13) }, () => r.int(10)).join("");
  }
  const zone = r.chance(0.5)
    ? "Z"
    : `${r.pick(["+", "-"])}${pad(r.chance(0.9) ? r.int(24) : r.pick([24, 25, 99]), 2)}:${
      pad(r.chance(0.9) ? r.int(60) : r.pick([60, 61]), 2)
    }`;
  let t = `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${
    pad(s, 2)
  }${frac}${zone}`;
  const muts = r.int(4) === 0 ? 0 : 1 + r.int(2);
  for (let k = 0; k < muts; k++) {
    const i = r.int(t.length + 1);
    const c = r.pick([
      ...'0123456789-:TtZz+.,_ "\n\t',
      "\u00e9",
      "\uff11",
      "\u0661",
      "\u0000",
      "\\",
    ]);
    switch (r.int(7)) {
      case 0:
        t = t.slice(0, i) + c + t.slice(i + 1);
        break;
      case 1:
        t = t.slice(0, i) + t.slice(i + 1);
        break;
      case 2:
        t = t.slice(0, i) + c + t.slice(i);
        break;
      case 3:
        t = t.slice(0, i);
        break;
      case 4:
        t = t.replace(/T0(\d)/, "T$1"); // single-digit hour
        break;
      case 5:
        t = t.replace(/-(\d\d)T/, r.pick(["-29T", "-31T", "-30T", "-1T"]));
        break;
      default:
        t = t.replace(
          /Z$/,
          r.pick([
            "z",
            "+00:00",
            "-00:00",
            "+24:00",
            "-23:60",
            "+0530",
            "+05",
            " ",
            "Z ",
            "Z\n",
            "",
          ]),
        );
    }
  }
  return t;
}

// ---- PEM ----

export function pemOf(type: string, der: Uint8Array, r: Rng): string {
  const body = b64(der).match(/.{1,64}/g) ?? [];
  let headers = "";
  if (r.chance(0.05)) headers = "Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\n";
  return `-----BEGIN ${type}-----\n${headers}${body.join("\n")}\n-----END ${type}-----\n`;
}

export function pemCase(r: Rng, ders: Uint8Array[]): string {
  const parts: string[] = [];
  const n = 1 + r.int(4);
  for (let i = 0; i < n; i++) {
    const x = r.int(20);
    const der = r.pick(ders);
    if (x < 10) parts.push(pemOf("CERTIFICATE", der, r));
    else if (x === 10) {
      parts.push(
        pemOf(
          r.pick([
            "PRIVATE KEY",
            "CERTIFICATE REQUEST",
            "X509 CRL",
            "certificate",
            "CERTIFICATE ",
            "TRUSTED CERTIFICATE",
            "",
          ]),
          der,
          r,
        ),
      );
    } else if (x === 11) {
      parts.push(pemOf("CERTIFICATE", Uint8Array.of(0x30, 0x03, 0x02, 0x01, 0x01), r));
    } else if (x === 12) parts.push("-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n");
    else if (x === 13) {
      parts.push(
        r.pick([
          "junk text\n",
          "# comment\n",
          "\n\n",
          "-----BEGIN CERTIFICATE-----\n",
          "-----END CERTIFICATE-----\n",
          "\u00e9t\u00e9\n",
        ]),
      );
    } else if (x === 14) parts.push("prefix " + pemOf("CERTIFICATE", der, r));
    else {
      let p = pemOf("CERTIFICATE", der, r);
      const m = r.int(8);
      if (m === 0) p = p.replace(/=+\n-----END/, "\n-----END");
      else if (m === 1) p = p.replace(/\n(.{10})/, "\n$1!");
      else if (m === 2) p = p.replace(/-----END CERTIFICATE-----/, "-----END CERTIFICAT-----");
      else if (m === 3) p = p.replace(/\n(\S)/g, "\n \t$1");
      else if (m === 4) p = p.replace(/-----\n/, "-----  \n");
      else if (m === 5) {
        p = p.replace(/-----END CERTIFICATE-----\n/, "-----END CERTIFICATE----- x\n");
      } else if (m === 6) p = p.replace(/\n-----END/, "\n\n-----END");
      else {p = p.replace(
          /^-----BEGIN CERTIFICATE-----\n/,
          "-----BEGIN CERTIFICATE-----\nHeader: v\n",
        );}
      parts.push(p);
    }
  }
  let text = parts.join(r.chance(0.2) ? "garbage between\n" : "");
  if (r.chance(0.15)) text = text.replace(/\n/g, "\r\n");
  if (r.chance(0.05)) text = "\uFEFF" + text;
  if (r.chance(0.1)) text = text.replace(/\n$/, "");
  return text;
}

// ---- kubeconfig ----

export function kubeconfigCase(
  r: Rng,
  pems: { pem: string; pin: string }[],
): { kubeconfig: Spec; pins: string[] } {
  const names = ["", "kubernetes", "prod", "a"];
  const nClusters = r.pick([1, 1, 1, 2, 2, 3, 0]);
  const clusters: Spec[] = [];
  const usedPins: string[] = [];
  for (let i = 0; i < nClusters; i++) {
    const nm = r.chance(0.1) && clusters.length ? clusters[0]!.name ?? "" : r.pick(names);
    const bundle = r.some(pems, 0.08).slice(0, 3);
    if (!bundle.length) bundle.push(r.pick(pems));
    let ca = bundle.map((b) => b.pem).join("");
    if (r.chance(0.05)) ca = "junk\n";
    if (r.chance(0.05)) ca += "-----BEGIN CERTIFICATE-----\nMAMCAQE=\n-----END CERTIFICATE-----\n";
    usedPins.push(...bundle.map((b) => b.pin));
    const entry: Spec = { cluster: { server: `https://${nm || "cluster"}-${i}:6443` } };
    if (!(nm === "" && r.chance(0.3))) entry.name = nm;
    if (r.chance(0.95)) entry.cluster["certificate-authority-data"] = btoa(ca);
    if (r.chance(0.05)) entry["api-version"] = "v1";
    clusters.push(entry);
  }
  const kc: Spec = { apiVersion: "v1", kind: "Config", clusters };
  if (r.chance(0.5)) {
    const ctxNames = ["ctx", "other", ""];
    kc.contexts = Array.from({ length: 1 + r.int(2) }, () => ({
      name: r.pick(ctxNames),
      context: { cluster: r.pick([...clusters.map((c) => c.name ?? ""), "missing"]), user: "u" },
    }));
    if (r.chance(0.8)) kc["current-context"] = r.pick([...ctxNames, "nope"]);
  }
  if (r.chance(0.1)) {
    kc.users = [{ name: "u", user: {} }, ...(r.chance(0.5) ? [{ name: "u", user: {} }] : [])];
  }
  const pins = r.chance(0.1)
    ? []
    : r.chance(0.7) && usedPins.length
    ? [r.pick(usedPins)]
    : ["sha256:" + "ab".repeat(32)];
  return { kubeconfig: kc, pins };
}

export { hex };
