import assert from "node:assert/strict";
import { diagnosticLine, redactTokens } from "../../lib/base/errors.ts";

// Issue 19, class 8: the redactor must not rewrite ordinary words; secrets still go.
Deno.test("redactTokens() leaves mixed-case words (field paths) alone and still withholds tokens", () => {
  const words = [
    "nodeRegistration.kubeletExtraArgs",
    'nodeRegistration.kubeletExtraArgs: Invalid value: "index 0": argument has no name',
    "discovery.unsafeSkipCAVerifica",
    "spec.ExpirationSeconds1",
    "x.certificateKeyFile",
  ];
  for (const w of words) assert.equal(redactTokens(w), w);
  const tokens: [string, string][] = [
    ["abcdef.0123456789abcdef", "abcdef.<value withheld>"],
    ["ABCDEF.0123456789ABCDEF", "ABCDEF.<value withheld>"],
    ["t abcdef.abcdefghijklmnop", "t abcdef.<value withheld>"],
    ["abcdef.0123456789012345", "abcdef.<value withheld>"],
  ];
  for (const [t, want] of tokens) assert.equal(redactTokens(t), want);
  assert.equal(
    diagnosticLine('nodeRegistration.kubeletExtraArgs: Invalid value: "index 0"'),
    'nodeRegistration.kubeletExtraArgs: Invalid value: "index 0"',
  );
});
