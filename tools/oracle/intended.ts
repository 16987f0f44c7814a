/**
 * The known, intended differences between the oracle's Go (1.23.5, the
 * newest Go on this machine) and the Go joinkit follows (1.25.x with patch
 * fixes ≥ 1.25.5, as Kubernetes 1.33–1.35 are built).
 *
 * By default the oracle is built with the go125/ overlay, which patches every
 * rule below into Go 1.23.5's own sources (each rule names its file in
 * `patched`): the oracle then gives Go 1.25's verdict itself and these rules
 * are off, so a disagreement on them is a failure like any other. They apply
 * only with `--go123-plain` (no overlay). Rules that could not be patched
 * would have no `patched` and apply in both modes; there are none today.
 *
 * A disagreement is "intended" only when one rule explains it exactly: the
 * input has the property the upstream change is about (a fact main.go
 * established), and the two verdicts differ the way that change makes them
 * differ. Anything else is a failure. Keep this list small; never add a rule
 * to quiet a bug. In plain mode the classifier misses cases where a 1.25 rule
 * changes which error a chain search ends on (chain-1-1863/9707/4252): those
 * are why the overlay exists.
 *
 * @module
 */

/** Input properties main.go reports (see its `Facts`). */
export interface Facts {
  negPathLen?: boolean;
  t61High?: boolean;
  bmpStrict?: boolean;
  rsaSmall?: boolean;
  rsaOddKey?: boolean;
  badBool?: boolean;
}

/** One verdict pair and what the classifier may look at. */
export interface Pair {
  judgement: string;
  // deno-lint-ignore no-explicit-any
  go: any;
  // deno-lint-ignore no-explicit-any
  joinkit: any;
  facts: Facts;
}

/** A known version difference. */
interface Rule {
  id: string;
  /** Upstream reason. */
  reason: string;
  /** The go125/ overlay file that makes the oracle's Go follow the rule (then the rule is off). */
  patched?: string;
  /**
   * Whether the rule explains the pair; `agree` is the driver's comparison,
   * for rules that rewrite Go's verdict into what the newer Go says.
   */
  applies: (p: Pair, agree: (go: unknown, joinkit: unknown) => boolean) => boolean;
}

const SHA1_SUFFIX = " (temporarily override with GODEBUG=x509sha1=1)";

const errOf = (v: { ok?: boolean; err?: string; check?: string }) => v.err ?? "";

const FIPS_RSA = [
  "crypto/rsa: public modulus is even",
  "crypto/rsa: public exponent is even",
  "crypto/rsa: public exponent too small or negative",
  "crypto/rsa: public exponent too large",
];

/** Name fields whose decoding changed with Go 1.25's T61String rule. */
const NAME_FIELDS = new Set(["subjectCN", "subjectO", "issuerCN"]);

/**
 * Go ≥ 1.25.5's matchDomainConstraint for an excluded constraint and a
 * wildcard SAN (golang/go#76442): both lose their leftmost label (the length
 * test comes first), then the usual rule: empty matches all, a leading dot
 * needs one more label, else equal or a subdomain, labels compared
 * case-insensitively.
 */
export function wildcardExcluded(san: string, constraint: string): boolean {
  if (constraint === "") return true;
  const dot = constraint.startsWith(".");
  let c = (dot ? constraint.slice(1) : constraint).split(".");
  let d = san.split(".");
  if (d.length < c.length || (dot && d.length === c.length)) return false;
  if (d.length > 1 && c.length > 0) {
    d = d.slice(1);
    c = c.slice(1);
  }
  for (let i = 1; i <= c.length; i++) {
    if (d[d.length - i]!.toLowerCase() !== c[c.length - i]!.toLowerCase()) return false;
  }
  return true;
}

/** Keys of two field maps that differ. */
// deno-lint-ignore no-explicit-any
export function differingFields(a: any, b: any): string[] {
  const keys = new Set([...Object.keys(a ?? {}), ...Object.keys(b ?? {})]);
  return [...keys].filter((k) =>
    a?.[k] !== undefined && b?.[k] !== undefined && JSON.stringify(a[k]) !== JSON.stringify(b[k])
  );
}

export const RULES: readonly Rule[] = [
  {
    id: "sha1-text",
    patched: "crypto/x509/x509.go",
    reason:
      "Go 1.24 removed GODEBUG x509sha1, and with it the ' (temporarily override with GODEBUG=x509sha1=1)' suffix of InsecureAlgorithmError",
    applies: (p, agree) => {
      const g = JSON.stringify(p.go);
      return g.includes(SHA1_SUFFIX) && agree(JSON.parse(g.split(SHA1_SUFFIX).join("")), p.joinkit);
    },
  },
  {
    id: "rsa1024min",
    patched: "crypto/rsa/go125_keychecks.go",
    reason:
      "Go 1.24 GODEBUG rsa1024min (default on): RSA keys below 1024 bits fail signature checks",
    applies: (p) =>
      p.facts.rsaSmall === true &&
      /crypto\/rsa: \d+-bit keys are insecure/.test(errOf(p.joinkit) + (p.joinkit.check ?? "")),
  },
  {
    id: "fips-rsa-key",
    patched: "crypto/rsa/go125_keychecks.go",
    reason:
      "Go 1.24 FIPS 140-3 module: RSA public keys with an even modulus, an even exponent, E<2 or E>2^31-1 fail every verification",
    applies: (p) =>
      p.facts.rsaOddKey === true &&
      FIPS_RSA.some((t) => (errOf(p.joinkit) + (p.joinkit.check ?? "")).includes(t)),
  },
  {
    id: "negative-pathlen",
    patched: "crypto/x509/parser.go",
    reason: "Go 1.25 reads BasicConstraints pathLen as unsigned: a negative value is refused",
    applies: (p) =>
      p.facts.negPathLen === true && errOf(p.joinkit).includes("x509: invalid basic constraints"),
  },
  {
    id: "bmp-strict",
    patched: "crypto/x509/parser.go, encoding/asn1/asn1.go",
    reason:
      "Go 1.25 refuses BMPStrings holding surrogates or non-characters (U+FFFE, U+FFFF, U+FDD0-FDEF); a certificate that no longer parses changes any verdict built on it",
    applies: (p) =>
      p.facts.bmpStrict === true && /invalid BMPString/.test(errOf(p.joinkit)) &&
      (p.go.ok === true || p.judgement === "chain" ||
        errOf(p.go).startsWith("x509: invalid RDNSequence")),
  },
  {
    id: "t61-latin1",
    patched: "crypto/x509/parser.go, encoding/asn1/asn1.go",
    reason:
      "Go 1.25 decodes T61String bytes as Latin-1 (Go 1.23 copied the raw bytes, often invalid UTF-8)",
    applies: (p) =>
      p.facts.t61High === true && p.go.ok === true && p.joinkit.ok === true &&
      differingFields(p.go.fields, p.joinkit.fields).every((k) => NAME_FIELDS.has(k)),
  },
  {
    id: "t61-latin1-quoted",
    patched: "crypto/x509/parser.go, encoding/asn1/asn1.go",
    reason:
      "Go 1.25 decodes T61String bytes as Latin-1, so a name Go 1.23 quoted as \\xNN (raw byte) is quoted as the Latin-1 character",
    applies: (p, agree) => {
      if (p.facts.t61High !== true) return false;
      // Go's %q of the Latin-1 character: printable as itself, else \u00XX.
      const requote = (_: string, h: string) => {
        const c = parseInt(h, 16);
        return c < 0xa0 || c === 0xa0 || c === 0xad
          ? "\\\\u00" + h.toLowerCase()
          : String.fromCharCode(c);
      };
      const g = JSON.stringify(p.go).replace(/\\\\x([89a-fA-F][0-9a-fA-F])/g, requote);
      return g !== JSON.stringify(p.go) && agree(JSON.parse(g), p.joinkit);
    },
  },
  {
    id: "excluded-wildcard",
    patched: "crypto/x509/verify.go",
    reason:
      "Go 1.24.11/1.25.5 (CVE-2025-61727, golang/go#76442): excluded DNS constraints apply to wildcard SANs",
    // Go 1.23 never applies the rule, so its verdict may be anything (another SAN or
    // another check fails first); the rule is re-checked here on joinkit's message.
    applies: (p) => {
      const m = /DNS name "(\*\.[^"]*)" is excluded by constraint "([^"]*)"$/.exec(
        errOf(p.joinkit),
      );
      return p.judgement === "chain" && m !== null && wildcardExcluded(m[1]!, m[2]!);
    },
  },
  {
    id: "hostname-truncation",
    patched: "crypto/x509/verify.go",
    reason:
      "Go 1.24.11/1.25.5 (CVE-2025-61729, golang/go#76445): HostnameError truncates a long list of names",
    // The new text for 100 names or more: "valid for N names, but none matched H" (or "N IP SANs").
    applies: (p) => {
      const g = errOf(p.go), j = errOf(p.joinkit);
      const m = /^x509: certificate is valid for (.*), not (.*)$/s.exec(g);
      if (!m) return false;
      const n = m[1]!.split(", ").length;
      return n >= 100 &&
        (j === `x509: certificate is valid for ${n} names, but none matched ${m[2]}` ||
          j === `x509: certificate is valid for ${n} IP SANs, but none matched ${m[2]}`);
    },
  },
  {
    id: "bmp-odd-text",
    patched: "encoding/asn1/asn1.go",
    reason:
      "Go 1.25's encoding/asn1 says 'invalid BMPString' for an odd-length BMPString (golang/go#71862); Go 1.23 said 'pkcs12: odd-length BMP string'",
    applies: (p, agree) => {
      const g = JSON.stringify(p.go);
      return g.includes("pkcs12: odd-length BMP string") &&
        agree(
          JSON.parse(g.split("pkcs12: odd-length BMP string").join("invalid BMPString")),
          p.joinkit,
        );
    },
  },
  {
    id: "asn1-bool-any",
    patched: "encoding/asn1/asn1.go",
    reason:
      "encoding/asn1 parses a BOOLEAN into any (golang/go#68241, in Go 1.25.5), so a malformed BOOLEAN in a CSR subject fails; Go 1.23 left it nil unchecked",
    applies: (p) =>
      p.judgement === "csr" && p.facts.badBool === true && p.go.ok === true &&
      errOf(p.joinkit) === "asn1: syntax error: invalid boolean",
  },
  {
    id: "pem-decode-rewrite",
    patched: "encoding/pem/pem.go",
    reason:
      "Go 1.24.8/1.25.2 (CVE-2025-61723) rewrote pem.Decode (END-first, last BEGIN before it); joinkit matches the model of the new algorithm",
    applies: (p, agree) =>
      p.judgement === "pem" && p.go.model125 !== undefined && agree(p.go.model125, p.joinkit),
  },
];

/**
 * The rule explaining a disagreement, or undefined when none does. With the
 * go125 overlay (`plain` false) the patched rules are off.
 */
export function classify(
  p: Pair,
  agree: (go: unknown, joinkit: unknown) => boolean,
  plain: boolean,
): Rule | undefined {
  return RULES.find((r) => (plain || r.patched === undefined) && r.applies(p, agree));
}
