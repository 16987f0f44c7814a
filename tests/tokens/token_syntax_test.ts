import assert from "node:assert/strict";
import {
  isValidBootstrapToken,
  isValidBootstrapTokenID,
  newBootstrapTokenString,
  validateBootstrapGroupName,
  validateUsages,
} from "../../lib/tokens/token.ts";

// cluster-bootstrap token/util/helpers_test.go TestIsValidBootstrapToken
const TOKENS: [string, boolean][] = [
  ["", false],
  [".", false],
  ["1234567890123456789012", false],
  ["12345.1234567890123456", false],
  [".1234567890123456", false],
  ["123456.", false],
  ["123456:1234567890.123456", false],
  ["abcdef:1234567890123456", false],
  ["Abcdef.1234567890123456", false],
  ["123456.AABBCCDDEEFFGGHH", false],
  ["123456.AABBCCD-EEFFGGHH", false],
  ["abc*ef.1234567890123456", false],
  ["abcdef.1234567890123456", true],
  ["123456.aabbccddeeffgghh", true],
  ["ABCDEF.abcdef0123456789", false],
  ["abcdef.abcdef0123456789", true],
  ["123456.1234560123456789", true],
];

Deno.test("isValidBootstrapToken() matches the upstream vectors", () => {
  for (const [token, want] of TOKENS) assert.equal(isValidBootstrapToken(token), want, token);
});

Deno.test("newBootstrapTokenString() agrees with isValidBootstrapToken() and hides the value", () => {
  for (const [token, want] of TOKENS) {
    if (want) {
      assert.equal(
        `${newBootstrapTokenString(token).id}.${newBootstrapTokenString(token).secret}`,
        token,
      );
    } else {
      assert.throws(() => newBootstrapTokenString(token), (e: Error) => {
        assert.equal(
          e.message,
          String
            .raw`the bootstrap token was not of the form "\\A([a-z0-9]{6})\\.([a-z0-9]{16})\\z"`,
        );
        return true;
      });
    }
  }
});

Deno.test("isValidBootstrapTokenID() matches the upstream vectors", () => {
  const cases: [string, boolean][] = [
    ["", false],
    ["1234567890123456789012", false],
    ["12345", false],
    ["Abcdef", false],
    ["ABCDEF", false],
    ["abcdef.", false],
    ["abcdef", true],
    ["123456", true],
  ];
  for (const [id, want] of cases) assert.equal(isValidBootstrapTokenID(id), want, id);
});

Deno.test("validateBootstrapGroupName() matches the upstream vectors and error text", () => {
  const cases: [string, boolean][] = [
    ["system:bootstrappers:foo", true],
    ["system:bootstrappers:foo:bar:baz", true],
    ["system:bootstrappers:foo-bar-42", true],
    ["system:bootstrappers:Foo", false],
    ["foo", false],
    ["system:bootstrappers:", false],
    ["system:bootstrappers: ", false],
    ["system:bootstrappers:*", false],
    ["system:bootstrappers:foo:", false],
    ["system:bootstrappers:foo-", false],
    ['system:bootstrappers:<script> alert("scary?!") </script>', false],
    ["system:bootstrappers:" + "x".repeat(300), false],
    ["system:bootstrappers:" + "x".repeat(256), true],
    ["system:bootstrappers:" + "x".repeat(257), false],
  ];
  for (const [name, valid] of cases) {
    assert.equal(validateBootstrapGroupName(name) === undefined, valid, name);
  }
  assert.equal(
    validateBootstrapGroupName("foo"),
    String
      .raw`bootstrap group "foo" is invalid (must match \Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\z)`,
  );
});

Deno.test("validateUsages() matches the upstream vectors and error text", () => {
  const cases: [string[], boolean][] = [
    [["signing"], true],
    [["authentication"], true],
    [["authentication", "signing"], true],
    [["authentication", "foo"], false],
    [["foo", "bar"], false],
  ];
  for (const [usages, valid] of cases) {
    assert.equal(validateUsages(usages) === undefined, valid, usages.join(","));
  }
  assert.equal(
    validateUsages(["foo", "bar", "foo", "signing"]),
    "invalid bootstrap token usage string: bar,foo, valid usage options: signing,authentication",
  );
});
