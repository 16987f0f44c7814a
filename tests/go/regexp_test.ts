/** Go's regexp (RE2) on re2js (lib/go/regexp.ts), held to Go 1.23's own verdicts. */

import assert from "node:assert/strict";
import fs from "node:fs";
import { compileGoRegexp, GoRegexpError } from "../../lib/go/regexp.ts";

/** Go's verdict on one pattern/input pair: `true`/`false` (MatchString) or the Compile error text. */
function verdict(pattern: string, input: string | Uint8Array): boolean | string {
  try {
    const re = compileGoRegexp(pattern);
    return typeof input === "string" ? re.matchString(input) : re.match(input);
  } catch (e) {
    assert.ok(e instanceof GoRegexpError, `${pattern}: ${e}`);
    return e.message;
  }
}

const err = (code: string, expr: string) => `error parsing regexp: ${code}: \`${expr}\``;

Deno.test("compileGoRegexp() accepts Go-only syntax that JavaScript refuses", () => {
  // Each verdict is Go 1.23.5's (regexp.Compile + MatchString).
  const cases: [string, string, boolean][] = [
    [String.raw`^node\-1$`, "node-1", true],
    [String.raw`^a\_b\:c$`, "a_b:c", true],
    [String.raw`^\101\x42\x{43}$`, "ABC", true], // octal, \xHH, \x{…}
    [String.raw`^\x{1F600}$`, "😀", true],
    [String.raw`^\Q.a*\E$`, ".a*", true],
    [String.raw`^\Q.a*\E$`, "xa", false],
    [String.raw`^\Qa.b`, "a.b", true], // \Q to the end
    [String.raw`^\pL+$`, "héllo", true],
    [String.raw`^\p{Greek}+$`, "αβ", true],
    [String.raw`^\PL$`, "1", true],
    [String.raw`^\p{^L}$`, "1", true],
    [String.raw`^(?i:NODE)-x$`, "node-x", true],
    [String.raw`^(?i:NODE)-x$`, "node-X", false],
    [String.raw`^a(?i)B$`, "ab", true], // flags mid-pattern
    [String.raw`^(?i)a(?-i)B$`, "AB", true],
    [String.raw`^(?i)a(?-i)B$`, "Ab", false],
    [String.raw`^[[:^alpha:]]+$`, "123-", true],
    [String.raw`^[[:^alpha:]]+$`, "12a", false],
    [String.raw`^[[:word:]]+$`, "a_1", true],
    [String.raw`^[]a]+$`, "]a]", true], // a literal ] first in a class
    [String.raw`^[^]a]$`, "b", true],
    [String.raw`^(?<name>x)$`, "x", true], // Go >= 1.22
    [String.raw`^(?P<name>x)$`, "x", true],
    [String.raw`^(?P<n>a)|(?P<n>b)$`, "b", true], // Go 1.23 allows a repeated name
    [String.raw`^(?<n>a)(?<n>b)(?P<n>c)$`, "abc", true],
    [String.raw`^\Anode\z`, "node", true],
    ["a{", "a{", true],
    ["a{,2}", "a{,2}", true],
    ["^a{1000}$", "a".repeat(1000), true],
    ["(?U)a+$", "aaa", true],
    [String.raw`^(?s).$`, "\n", true],
  ];
  for (const [p, s, want] of cases) {
    assert.equal(verdict(p, s), want, `${p} on ${JSON.stringify(s)}`);
  }
});

Deno.test("compileGoRegexp() refuses what Go refuses, with regexp.Compile's text", () => {
  const cases: [string, string][] = [
    [String.raw`\u002e`, err("invalid escape sequence", String.raw`\u`)],
    [String.raw`\cJ`, err("invalid escape sequence", String.raw`\c`)],
    [String.raw`\x{110000}`, err("invalid escape sequence", String.raw`\x{110000`)],
    [String.raw`\8`, err("invalid escape sequence", String.raw`\8`)],
    [String.raw`(a)\1`, err("invalid escape sequence", String.raw`\1`)],
    [String.raw`\k<n>`, err("invalid escape sequence", String.raw`\k`)],
    [String.raw`a\Z`, err("invalid escape sequence", String.raw`\Z`)],
    [String.raw`\C`, err("invalid escape sequence", String.raw`\C`)],
    ["a{1001}", err("invalid repeat count", "{1001}")],
    ["a{0,1001}", err("invalid repeat count", "{0,1001}")],
    ["(a{500}){3}", err("invalid repeat count", "{3}")],
    ["a{2,1}", err("invalid repeat count", "{2,1}")],
    ["a**", err("invalid nested repetition operator", "**")],
    ["a++", err("invalid nested repetition operator", "++")],
    ["x{2}{3}", err("invalid nested repetition operator", "{2}{3}")],
    ["*", err("missing argument to repetition operator", "*")],
    ["a(?=b)", err("invalid or unsupported Perl syntax", "(?=")],
    ["a(?!b)", err("invalid or unsupported Perl syntax", "(?!")],
    ["x(?<=a)b", err("invalid named capture", "(?<=a)b")],
    ["(?P=n)", err("invalid or unsupported Perl syntax", "(?P")],
    ["(?z)a", err("invalid or unsupported Perl syntax", "(?z")],
    ["(?P<a-b>x)", err("invalid named capture", "(?P<a-b>")],
    ["[a", err("missing closing ]", "[a")],
    ["[z-a]", err("invalid character class range", "z-a")],
    ["[[:foo:]]", err("invalid character class range", "[:foo:]")],
    ["(a", err("missing closing )", "(a")],
    ["a)", err("unexpected )", "a)")],
    // re2js drops the empty expr; Go prints it.
    ["a\\", err("trailing backslash at end of expression", "")],
    // Go names the whole pattern.
    [
      "(".repeat(1001) + ")".repeat(1001),
      err("expression nests too deeply", "(".repeat(1001) + ")".repeat(1001)),
    ],
  ];
  for (const [p, want] of cases) assert.equal(verdict(p, "a"), want, p);
});

Deno.test("compileGoRegexp() knows only Go 1.23's \\p names (re2js knows more), refused where Go refuses them", () => {
  const cases: [string, string][] = [
    [String.raw`\p{Cn}`, err("invalid character class range", String.raw`\p{Cn}`)],
    [String.raw`\p{LC}`, err("invalid character class range", String.raw`\p{LC}`)],
    [String.raw`\p{Alphabetic}`, err("invalid character class range", String.raw`\p{Alphabetic}`)],
    [
      String.raw`\p{White_Space}`,
      err("invalid character class range", String.raw`\p{White_Space}`),
    ],
    [String.raw`\p{Garay}`, err("invalid character class range", String.raw`\p{Garay}`)], // Unicode 16
    [String.raw`\p{greek}`, err("invalid character class range", String.raw`\p{greek}`)], // exact names
    [String.raw`\P{^Cn}`, err("invalid character class range", String.raw`\P{^Cn}`)],
    [String.raw`\pl`, err("invalid character class range", String.raw`\pl`)],
    [String.raw`[a\p{Cn}]`, err("invalid character class range", String.raw`\p{Cn}`)],
    // The first error in the pattern wins, as in Go's one left-to-right parse.
    [String.raw`\p{Cn}(`, err("invalid character class range", String.raw`\p{Cn}`)],
    [String.raw`a**\p{Cn}`, err("invalid nested repetition operator", "**")],
    [String.raw`\Q\p{Cn}\E\p{Cn}`, err("invalid character class range", String.raw`\p{Cn}`)],
  ];
  for (const [p, want] of cases) assert.equal(verdict(p, "a"), want, p);
  assert.equal(verdict(String.raw`^\Q\p{Cn}\E$`, String.raw`\p{Cn}`), true);
  assert.equal(verdict(String.raw`^\p{Any}\p{Kawi}?$`, "a"), true);
});

Deno.test("compileGoRegexp() renames repeated group names without changing error texts", () => {
  assert.equal(verdict("(?P<n>a)(?P<n>b)(", "a"), err("missing closing )", "(?P<n>a)(?P<n>b)("));
  assert.equal(verdict("(?P<n>a)(?P<n>b))", "a"), err("unexpected )", "(?P<n>a)(?P<n>b))"));
  assert.equal(verdict("(?P<n>a)(?P<n>b)**", "a"), err("invalid nested repetition operator", "**"));
  assert.equal(verdict("(?P<a_>x)(?P<a_>y)$", "xy"), true);
});

Deno.test("compileGoRegexp() matches as RE2: lines, spaces, dot, Unicode", () => {
  const cases: [string, string, boolean][] = [
    ["(?m)^a$", "a\r\nb", false], // JavaScript ends a line at \r
    ["(?m)^a$", "a\nb", true],
    ["(?m)a$", "a\r", false],
    ["(?m)^b", "a\rb", false],
    ["^a$", "a\n", false], // $ is the end of text without (?m)
    [String.raw`^\s$`, "\v", false], // RE2's \s is [\t\n\f\r ]
    [String.raw`^\s$`, "\u00a0", false],
    [String.raw`^\s$`, "\ufeff", false],
    [String.raw`^\s$`, "\f", true],
    [String.raw`^[\s]$`, "\u2028", false],
    [String.raw`^[[:space:]]$`, "\v", true], // POSIX space includes \v
    ["^.$", "\r", true],
    ["^.$", "\u2028", true],
    ["^.$", "\n", false],
    ["^.$", "😀", true], // one code point, not two UTF-16 units
    [String.raw`^\w$`, "é", false], // ASCII \w, \d, \b
    [String.raw`^\d$`, "٣", false],
    [String.raw`\bé`, "é", false], // no boundary between two non-word characters
    [String.raw`\bé`, "xé", true],
    ["(?i)k", "\u212a", true], // Kelvin sign folds to k
    ["(?i)ſ", "S", true],
    ["(?i)σ", "ς", true],
    // golang/go#59007: Go 1.23 factors a case-folded literal together with its case-sensitive
    // twin in an alternation (fixed in Go's later sources); re2js and joinkit do not.
    ["0A|0[aA]", "0a", true],
    ["Σ(?i)|σµ+", "σµµ", true],
    ["(?i:Z)x|Z", "z", false],
    ["^\ud800$", "\ufffd", true], // a lone surrogate is U+FFFD, as Go's JSON reads it
    ["^\ufffd$", "\udc00", true],
  ];
  for (const [p, s, want] of cases) {
    assert.equal(verdict(p, s), want, `${p} on ${JSON.stringify(s)}`);
  }
});

Deno.test("GoRegexp.match() reads invalid UTF-8 as Go does: U+FFFD per bad byte", () => {
  const b = (...x: number[]) => Uint8Array.from(x);
  assert.equal(verdict(String.raw`^\x{FFFD}\x{FFFD}$`, b(0xe2, 0x82)), true);
  assert.equal(verdict(String.raw`^\x{FFFD}$`, b(0xe2, 0x82)), false);
  assert.equal(verdict("^.$", b(0xff)), true);
  assert.equal(verdict("^..$", b(0xed, 0xa0, 0x80)), false); // a UTF-8 surrogate is 3 bad bytes
  assert.equal(verdict("^é$", b(0xc3, 0xa9)), true);
});

Deno.test("compileGoRegexp() matches in linear time: ^(a+)+$ against a 100 KB DNS SAN finishes", () => {
  // On JavaScript's backtracking engine 30 a's and a '!' already take seconds.
  const re = compileGoRegexp("^(a+)+$");
  const san = "a".repeat(100_000) + ".example.com";
  assert.equal(re.matchString(san), false);
  assert.equal(re.matchString("a".repeat(100_000)), true);
  assert.equal(compileGoRegexp(String.raw`^([\w-]+\.?)+\.test\.ch!$`).matchString(san), false);
  assert.equal(compileGoRegexp("(x+x+)+y").matchString("x".repeat(100_000)), false);
});

Deno.test("compileGoRegexp() agrees with Go 1.23 on the oracle's recorded cases", () => {
  // tools/oracle/regexp_fixture.ts: Go's verdicts on the cases above and ~400 generated ones.
  const rows: { p: string; s: string; b?: string; go: { match?: boolean; err?: string } }[] = JSON
    .parse(fs.readFileSync(new URL("../fixtures/oracle/regexp_go.json", import.meta.url), "utf8"));
  assert.ok(rows.length >= 300, `${rows.length} rows`);
  let matched = 0;
  let refused = 0;
  for (const [i, row] of rows.entries()) {
    const input = row.b === undefined
      ? row.s
      : Uint8Array.from(atob(row.b), (c) => c.charCodeAt(0));
    const want = row.go.err ?? row.go.match!;
    assert.equal(verdict(row.p, input), want, `row ${i}: ${JSON.stringify(row.p)}`);
    if (row.go.match) matched++;
    if (row.go.err) refused++;
  }
  // The fixture exercises all three outcomes.
  assert.ok(matched > 50 && refused > 50 && rows.length - matched - refused > 50);
});
