import assert from "node:assert/strict";
import * as fs from "node:fs";
import { parseCertificate } from "../../lib/pki/cert_info.ts";
import { parseCsrDer } from "../../lib/kubelet/csr.ts";
import { goQuoteBytes } from "../../lib/go/quote.ts";
import { InputError } from "../../lib/base/errors.ts";
import { repoPath } from "../_cli.ts";

/**
 * Regression tests for the parse disagreements the differential oracle
 * (`deno task oracle`, tools/oracle) found between Go and joinkit, and their
 * neighbours. Expected texts are what Go 1.23.5 printed (a throw-away
 * program over `x509.ParseCertificateRequest`, `asn1.Unmarshal` and `%q`);
 * where Go 1.25 differs, the value is Go 1.25's and `why` names the change.
 */

const fixture = (path: string) =>
  new Uint8Array(fs.readFileSync(repoPath(`tests/fixtures/oracle/${path}`)));
// deno-lint-ignore no-explicit-any
const verdicts = (path: string): any =>
  JSON.parse(fs.readFileSync(repoPath(`tests/fixtures/oracle/${path}`), "utf8"));

function errorOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    // The parsers throw nothing but InputError, whatever the input.
    assert.ok(e instanceof InputError, String(e));
    return e.message;
  }
  return "ok";
}

const hex = (h: string) => Uint8Array.from(h.match(/../g) ?? [], (x) => parseInt(x, 16));

Deno.test("parseCsrDer() oracle reproducers fail with Go's text", () => {
  const cases: { name: string; why?: string; want?: string }[] = [
    { name: "csr-1-1005" }, // tags don't match: %+v dumps, offset inside publicKeyInfo's parent
    { name: "csr-1-6298" }, // attribute value tagged UTCTime: time.Parse's error
    { name: "csr-1-6726" }, // OID cut inside a base-128 arc
    {
      name: "csr-1-1092",
      want: "invalid BMPString",
      why: "Go 1.25 encoding/asn1 (golang/go#71862); Go 1.23 said pkcs12: odd-length BMP string",
    },
  ];
  for (const c of cases) {
    const go = verdicts(`csr/${c.name}.verdicts.json`).go;
    assert.equal(go.ok, false);
    const got = errorOf(() => parseCsrDer(fixture(`csr/${c.name}.der`)));
    assert.equal(got, c.want ?? go.err, `${c.name}${c.why ? ` (${c.why})` : ""}`);
  }
});

Deno.test("parseCertificate() and parseCsrDer() read md2WithRSAEncryption as Go's unknown algorithm", () => {
  // Go prints UnknownSignatureAlgorithm as "0"; joinkit's name for it is "".
  const cert = verdicts("cert/cert-md2-sigalg.verdicts.json").go125;
  assert.equal(cert.fields.sigAlg, "0");
  assert.equal(parseCertificate(fixture("cert/cert-md2-sigalg.der")).signatureAlgorithm, "");
  const csr = verdicts("csr/csr-3-6106.verdicts.json").go125;
  assert.equal(csr.fields.sigAlg, "0");
  assert.equal(parseCsrDer(fixture("csr/csr-3-6106.der")).signatureAlgorithm, "");
});

Deno.test("parseCertificate() quotes a non-ASCII name constraint with Go's byte-level %q", () => {
  for (const name of ["cert-1-744", "cert-1-8740"]) {
    const go = verdicts(`cert/${name}.verdicts.json`).go;
    const got = errorOf(() => parseCertificate(fixture(`cert/${name}.der`)));
    assert.equal(got, go.err, name);
    assert.match(got, /\\x[0-9a-f]{2}/, name);
  }
});

/**
 * One-byte edits of a valid CSR (csr-1-1038: P-384 key, CN "admin", a SAN
 * extension request), one per encoding/asn1 error path. `tags don't match`
 * names the Go type (`""` for unnamed slice types) and the offset after the
 * header inside the slice encoding/asn1 was parsing.
 */
const EDITS: { set?: [number, number]; add?: [number, number]; truncate?: number; err: string }[] =
  [
    {
      set: [0, 0x0],
      err:
        "asn1: structure error: tags don't match (16 vs {class:0 tag:0 length:297 isCompound:false}) {optional:false explicit:false application:false private:false defaultValue:<nil> tag:<nil> stringType:0 timeType:0 set:false omitEmpty:false} certificateRequest @4",
    },
    { truncate: 0, err: "asn1: syntax error: sequence truncated" },
    { truncate: 100, err: "asn1: syntax error: data truncated" },
    { set: [1, 0x1], err: "asn1: syntax error: truncated tag or length" },
    {
      set: [1, 0x2],
      err:
        "asn1: structure error: tags don't match (16 vs {class:0 tag:1 length:41 isCompound:false}) {optional:false explicit:false application:false private:false defaultValue:<nil> tag:<nil> stringType:0 timeType:0 set:false omitEmpty:false} tbsCertificateRequest @2",
    },
    { set: [1, 0x80], err: "asn1: syntax error: indefinite length found (not DER)" },
    { set: [1, 0x81], err: "asn1: structure error: non-minimal length" },
    { set: [1, 0xa0], err: "asn1: structure error: length too large" },
    { add: [1, 1], err: "asn1: syntax error: data truncated" },
    { set: [2, 0x0], err: "asn1: structure error: superfluous leading zeros in length" },
    {
      set: [5, 0x2],
      err:
        "asn1: structure error: tags don't match (2 vs {class:2 tag:17 length:2 isCompound:true}) {optional:false explicit:false application:false private:false defaultValue:<nil> tag:<nil> stringType:0 timeType:0 set:false omitEmpty:false} int @2",
    },
    {
      set: [6, 0xff],
      err:
        "asn1: structure error: tags don't match (16 vs {class:2 tag:6 length:41 isCompound:false}) {optional:false explicit:false application:false private:false defaultValue:<nil> tag:<nil> stringType:0 timeType:0 set:false omitEmpty:false} AlgorithmIdentifier @260",
    },
    { set: [7, 0x1f], err: "asn1: syntax error: non-minimal tag" },
    { set: [8, 0x0], err: "asn1: structure error: empty integer" },
    { set: [8, 0x2], err: "asn1: structure error: integer not minimally-encoded" },
    {
      set: [10, 0x0],
      err:
        "asn1: structure error: tags don't match (16 vs {class:0 tag:0 length:16 isCompound:false}) {optional:false explicit:false application:false private:false defaultValue:<nil> tag:<nil> stringType:0 timeType:0 set:false omitEmpty:false} RDNSequence @2",
    },
    {
      set: [11, 0x0],
      err:
        "asn1: structure error: tags don't match (16 vs {class:0 tag:17 length:14 isCompound:true}) {optional:false explicit:false application:false private:false defaultValue:<nil> tag:<nil> stringType:0 timeType:0 set:false omitEmpty:false} publicKeyInfo @7",
    },
    { set: [12, 0x0], err: "asn1: structure error: sequence tag mismatch" },
    { set: [13, 0x13], err: "asn1: syntax error: truncated sequence" },
    {
      set: [16, 0x0],
      err:
        "asn1: structure error: tags don't match (6 vs {class:0 tag:0 length:3 isCompound:false}) {optional:false explicit:false application:false private:false defaultValue:<nil> tag:<nil> stringType:0 timeType:0 set:false omitEmpty:false} ObjectIdentifier @2",
    },
    { set: [17, 0x0], err: "asn1: syntax error: zero length OBJECT IDENTIFIER" },
    { set: [18, 0x80], err: "asn1: syntax error: integer is not minimally encoded" },
    { set: [20, 0x81], err: "asn1: syntax error: truncated base 128 integer" },
    { add: [21, -1], err: "asn1: syntax error: NumericString contains invalid character" },
    { set: [23, 0x0], err: "asn1: syntax error: PrintableString contains invalid character" },
    {
      set: [31, 0x13],
      err:
        "asn1: structure error: tags don't match (3 vs {class:0 tag:4 length:7 isCompound:false}) {optional:false explicit:false application:false private:false defaultValue:<nil> tag:<nil> stringType:0 timeType:0 set:false omitEmpty:false} BitString @23",
    },
    { set: [49, 0x0], err: "asn1: syntax error: zero length BIT STRING" },
    { set: [50, 0x2], err: "asn1: syntax error: invalid padding bits in BIT STRING" },
    {
      set: [165, 0x0],
      err:
        "asn1: structure error: tags don't match (16 vs {class:0 tag:0 length:17 isCompound:false}) {optional:false explicit:false application:false private:false defaultValue:<nil> tag:<nil> stringType:0 timeType:0 set:false omitEmpty:false}  @2",
    },
    {
      set: [170, 0x1],
      err:
        "asn1: structure error: tags don't match (4 vs {class:0 tag:29 length:17 isCompound:false}) {optional:false explicit:false application:false private:false defaultValue:<nil> tag:<nil> stringType:0 timeType:0 set:false omitEmpty:false}  @5",
    },
    { set: [174, 0x1], err: "asn1: syntax error: invalid boolean" },
    {
      add: [29, 1],
      err:
        "asn1: structure error: tags don't match (0 vs {class:0 tag:2 length:48 isCompound:true}) {optional:false explicit:false application:false private:false defaultValue:<nil> tag:0xc0003dda58 stringType:0 timeType:0 set:false omitEmpty:false}  @144",
    },
  ];

/** Go prints the `*int` of a `tag:N` field as a heap address, which changes from run to run. */
const maskPointer = (s: string) => s.replace(/tag:0x[0-9a-f]+/, "tag:0x…");

Deno.test("parseCsrDer() encoding/asn1 errors: text, %+v dumps, Go type names and slice-relative offsets", () => {
  const base = fixture("csr/csr-1-1038.der");
  assert.equal(errorOf(() => parseCsrDer(base)), "ok");
  for (const e of EDITS) {
    let der = base.slice();
    if (e.set) der[e.set[0]] = e.set[1];
    if (e.add) der[e.add[0]] = (der[e.add[0]]! + e.add[1]) & 0xff;
    if (e.truncate !== undefined) der = der.slice(0, e.truncate);
    assert.equal(
      maskPointer(errorOf(() => parseCsrDer(der))),
      maskPointer(e.err),
      JSON.stringify(e),
    );
  }
  const trailing = new Uint8Array([...base, 0]);
  assert.equal(errorOf(() => parseCsrDer(trailing)), "asn1: syntax error: trailing data");
});

/** DER TLV with a definite length. */
function tlv(tag: number, c: Uint8Array): Uint8Array {
  const n = c.length;
  const len = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return new Uint8Array([tag, ...len, ...c]);
}

/** csr-1-1038 with its subject's CN value element replaced (the signature no longer matters). */
function withCnValue(value: Uint8Array): Uint8Array {
  const base = fixture("csr/csr-1-1038.der");
  const subject = tlv(
    0x30,
    tlv(0x31, tlv(0x30, new Uint8Array([...base.subarray(16, 21), ...value]))),
  );
  const tbs = tlv(
    0x30,
    new Uint8Array([...base.subarray(7, 10), ...subject, ...base.subarray(28, 184)]),
  );
  return tlv(0x30, new Uint8Array([...tbs, ...base.subarray(184)]));
}

/**
 * Subject attribute values, which encoding/asn1 decodes into `any`: times
 * through time.Parse with its own error texts (the UTCTime error is the
 * second layout's), then the Format round trip; OIDs through
 * parseBase128Int; the string types; everything else left nil.
 */
const VALUES: { what: string; value: string; err?: string; cn?: string; why?: string }[] = [
  {
    what: "UTCTime admin",
    value: "170561646d696e",
    err: 'parsing time "admin" as "060102150405Z0700": cannot parse "admin" as "06"',
  },
  {
    what: "UTCTime without zone",
    value: "170a32343031303131323030",
    err: 'parsing time "2401011200" as "060102150405Z0700": cannot parse "" as "05"',
  },
  {
    what: "UTCTime +0000",
    value: "17113234303130313132303030302b30303030",
    err:
      'asn1: time did not serialize back to the original value and may be invalid: given "240101120000+0000", but serialized as "240101120000Z"',
  },
  {
    what: "UTCTime offset hour 25",
    value: "17113234303130313132303030302b32353030",
    err: 'parsing time "240101120000+2500": time zone offset hour out of range',
  },
  {
    what: "UTCTime offset minute 61",
    value: "17113234303130313132303030302b30313631",
    err: 'parsing time "240101120000+0161": time zone offset minute out of range',
  },
  {
    what: "UTCTime offset minute 60",
    value: "17113234303130313132303030302b30313630",
    err:
      'asn1: time did not serialize back to the original value and may be invalid: given "240101120000+0160", but serialized as "240101120000+0200"',
  },
  {
    what: "UTCTime month 13",
    value: "170d3234313330313132303030305a",
    err: 'parsing time "241301120000Z": month out of range',
  },
  {
    what: "UTCTime Feb 30",
    value: "170d3234303233303132303030305a",
    err: 'parsing time "240230120000Z": day out of range',
  },
  {
    what: "UTCTime hour 24",
    value: "170d3234303130313234303030305a",
    err: 'parsing time "240101240000Z": hour out of range',
  },
  {
    what: "UTCTime second 60",
    value: "170d3234303130313132303036305a",
    err: 'parsing time "240101120060Z": second out of range',
  },
  {
    what: "UTCTime fraction",
    value: "170f3234303130313132303030302e355a",
    err:
      'asn1: time did not serialize back to the original value and may be invalid: given "240101120000.5Z", but serialized as "240101120000Z"',
  },
  {
    what: "UTCTime extra text",
    value: "17113234303130313132303030305a6a756e6b",
    err: 'parsing time "240101120000Zjunk": extra text: "junk"',
  },
  {
    what: "UTCTime signed year",
    value: "170d2d34303130313132303030305a",
    err:
      'asn1: time did not serialize back to the original value and may be invalid: given "-40101120000Z", but serialized as "960101120000Z"',
  },
  {
    what: "UTCTime short seconds",
    value: "170c32343031303131323030305a",
    err: 'parsing time "24010112000Z" as "060102150405Z0700": cannot parse "0Z" as "05"',
  },
  {
    what: "UTCTime bad zone sign",
    value: "17113234303130313132303030302a30313030",
    err: 'parsing time "240101120000*0100" as "060102150405Z0700": cannot parse "*0100" as "Z0700"',
  },
  {
    what: "UTCTime one-digit hour",
    value: "170d3234303130312031303030305a",
    err: 'parsing time "240101 10000Z" as "060102150405Z0700": cannot parse " 10000Z" as "15"',
  },
  {
    what: "UTCTime non-ASCII",
    value: "1703c3a9ff",
    err:
      'parsing time "\\xc3\\xa9\\xff" as "060102150405Z0700": cannot parse "\\xc3\\xa9\\xff" as "06"',
  },
  {
    what: "UTCTime quote and newline",
    value: "170b323430313031310a22305a",
    err:
      'parsing time "2401011\\x0a\\"0Z" as "060102150405Z0700": cannot parse "\\x0a\\"0Z" as "04"',
  },
  { what: "UTCTime valid, minutes only", value: "170b323430313031313230305a", cn: "" },
  {
    what: "GeneralizedTime trailing zero",
    value: "181232303234303130313132303030302e35305a",
    err:
      'asn1: time did not serialize back to the original value and may be invalid: given "20240101120000.50Z", but serialized as "20240101120000.5Z"',
  },
  {
    what: "GeneralizedTime comma",
    value: "181132303234303130313132303030302c355a",
    err:
      'asn1: time did not serialize back to the original value and may be invalid: given "20240101120000,5Z", but serialized as "20240101120000.5Z"',
  },
  {
    what: "GeneralizedTime bare point",
    value: "181032303234303130313132303030302e5a",
    err:
      'parsing time "20240101120000.Z" as "20060102150405.999999999Z0700": cannot parse ".Z" as "Z0700"',
  },
  {
    what: "GeneralizedTime ten digits",
    value: "181a32303234303130313132303030302e313233343536373839315a",
    err:
      'asn1: time did not serialize back to the original value and may be invalid: given "20240101120000.1234567891Z", but serialized as "20240101120000.123456789Z"',
  },
  {
    what: "GeneralizedTime no seconds",
    value: "180d3230323430313031313230305a",
    err:
      'parsing time "202401011200Z" as "20060102150405.999999999Z0700": cannot parse "Z" as "05"',
  },
  {
    what: "GeneralizedTime Feb 29 2023",
    value: "180f32303233303232393132303030305a",
    err: 'parsing time "20230229120000Z": day out of range',
  },
  {
    what: "GeneralizedTime sign in month",
    value: "180f323032342b3130313132303030305a",
    err:
      'parsing time "2024+101120000Z" as "20060102150405.999999999Z0700": cannot parse "+101120000Z" as "01"',
  },
  {
    what: "GeneralizedTime valid",
    value: "181d32303234303130313132303030302e3132333435363738392d30313330",
    cn: "",
  },
  { what: "OID empty", value: "0600", err: "asn1: syntax error: zero length OBJECT IDENTIFIER" },
  {
    what: "OID truncated",
    value: "06022a86",
    err: "asn1: syntax error: truncated base 128 integer",
  },
  {
    what: "OID leading 0x80",
    value: "06022a80",
    err: "asn1: syntax error: integer is not minimally encoded",
  },
  {
    what: "OID arc above 2^31-1",
    value: "06062a8fffffff7f",
    err: "asn1: structure error: base 128 integer too large",
  },
  {
    what: "OID six-byte arc",
    value: "06068f8f8f8f8f01",
    err: "asn1: structure error: base 128 integer too large",
  },
  { what: "OID arc 2^31-1", value: "06062a87ffffff7f", cn: "" },
  {
    what: "BMPString odd length",
    value: "1e03006100",
    err: "invalid BMPString",
    why:
      'Go 1.25 encoding/asn1 parseBMPString (golang/go#71862); Go 1.23 said "pkcs12: odd-length BMP string"',
  },
  {
    what: "BMPString surrogate",
    value: "1e02d800",
    err: "invalid BMPString",
    why: "Go 1.25 rejects surrogates and noncharacters (golang/go#71862); Go 1.23 accepted",
  },
  {
    what: "BOOLEAN 5 bytes",
    value: "010561646d696e",
    err: "asn1: syntax error: invalid boolean",
    why: "Go 1.24+ parses BOOLEAN into `any` (golang/go#68241); Go 1.23 left it nil",
  },
  {
    what: "BOOLEAN 0x01",
    value: "010101",
    err: "asn1: syntax error: invalid boolean",
    why: "Go 1.24+ parses BOOLEAN into `any` (golang/go#68241); Go 1.23 left it nil",
  },
  { what: "BOOLEAN true", value: "0101ff", cn: "" },
  { what: "UTF8String invalid", value: "0c0261ff", err: "asn1: invalid UTF-8 string" },
  {
    what: "IA5String high byte",
    value: "160261e9",
    err: "asn1: syntax error: IA5String contains invalid character",
  },
  {
    what: "INTEGER 9 bytes",
    value: "0209010203040506070809",
    err: "asn1: structure error: integer too large",
  },
  {
    what: "BIT STRING bad padding",
    value: "03020801",
    err: "asn1: syntax error: invalid padding bits in BIT STRING",
  },
  { what: "T61String Latin-1", value: "140263e9", cn: "cé" },
  { what: "VisibleString (nil)", value: "1a0178", cn: "" },
];

Deno.test("parseCsrDer() subject values decoded as encoding/asn1's any: times, OIDs, strings, BOOLEAN", () => {
  for (const v of VALUES) {
    const got = errorOf(() => {
      const csr = parseCsrDer(withCnValue(hex(v.value)));
      assert.equal(csr.subject.commonName, v.cn, v.what);
    });
    assert.equal(got, v.err ?? "ok", v.why ? `${v.what} (${v.why})` : v.what);
  }
});

Deno.test("goQuoteBytes() is Go's %q over raw bytes", () => {
  const cases: [string, string][] = [
    ["666fe9", '"fo\\xe9"'],
    ["e282ac", '"€"'],
    ["c3a9", '"é"'],
    ["ff", '"\\xff"'],
    ["00", '"\\x00"'],
    ["7f", '"\\x7f"'],
    ["22", '"\\""'],
    ["5c", '"\\\\"'],
    ["0a", '"\\n"'],
    ["c2a0", '"\\u00a0"'],
    ["c2ad", '"\\u00ad"'],
    ["efbfbd", '"\ufffd"'],
    ["eda080", '"\\xed\\xa0\\x80"'],
    ["f09f9880", '"\u{1f600}"'],
    ["e2", '"\\xe2"'],
    ["c0af", '"\\xc0\\xaf"'],
    ["f4908080", '"\\xf4\\x90\\x80\\x80"'],
    ["e28080", '"\\u2000"'],
  ];
  for (const [h, want] of cases) assert.equal(goQuoteBytes(hex(h)), want, h);
});
