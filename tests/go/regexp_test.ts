/** Go RE2 patterns on JavaScript's engine (lib/go/regexp.ts). */

import assert from "node:assert/strict";
import { compileGoRegexp } from "../../lib/go/regexp.ts";

Deno.test("compileGoRegexp() translates RE2 spellings and refuses what RE2 refuses", () => {
  const ok: [string, string, boolean][] = [
    [String.raw`^[\w-]*\.test\.ch$`, "ab-1.test.ch", true],
    [String.raw`^[\w-]*\.test\.ch$`, "a.b.test.ch", false],
    ["test", "xtestx", true], // unanchored, as MatchString
    ["(?i)^NODE", "node-1", true],
    ["(?P<n>node)-1", "node-1", true],
    ["[[:digit:]]+$", "n12", true],
    [String.raw`\Qa.b\E`, "axb", false],
    ["a{", "a{", true],
    [String.raw`\Anode\z`, "node", true],
  ];
  for (const [re, s, want] of ok) assert.equal(compileGoRegexp(re).test(s), want, `${re} ${s}`);
  for (const bad of ["a(?=b)", "a(?!b)", "(?<=a)b", String.raw`(a)\1`, "a**+", "[a"]) {
    assert.throws(() => compileGoRegexp(bad), /error parsing regexp/, bad);
  }
});
