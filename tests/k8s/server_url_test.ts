import assert from "node:assert/strict";
import { parseJoinEndpoint, parseServerUrl } from "../../lib/k8s/server_url.ts";

Deno.test("parseServerUrl() takes https://HOST:PORT with IPv4, IPv6 and DNS hosts", () => {
  const cases: [string, string, string][] = [
    ["https://10.0.0.1:6443", "10.0.0.1:6443", "https://10.0.0.1:6443"],
    ["HTTPS://cp.example.com:443/", "cp.example.com:443", "https://cp.example.com:443"],
    ["https://[fd00::1]:6443", "[fd00::1]:6443", "https://[fd00::1]:6443"],
  ];
  for (const [text, hostPort, url] of cases) {
    const got = parseServerUrl(text);
    assert.deepEqual([got.hostPort, got.url], [hostPort, url], text);
  }
});

Deno.test("parseServerUrl() refuses other schemes, paths, bad hosts and ports, quoting the value as given", () => {
  const cases: [string, string][] = [
    ["http://10.0.0.1:6443", "must start with https://, e.g. https://10.0.0.1:6443"],
    ["10.0.0.1:6443", "must start with https://, e.g. https://10.0.0.1:6443"],
    ["https://10.0.0.1:6443/api", "want HOST:PORT, e.g. 10.0.0.1:6443"],
    ["https://10.0.0.1", "want HOST:PORT, e.g. 10.0.0.1:6443"],
    ["https://:6443", "missing host"],
    ["https://999.0.0.1:6443", "invalid host"],
    ["https://[zz::1]:6443", "invalid IPv6 address"],
    ["https://10.0.0.1:0", "port must be a number from 1 to 65535"],
    ["https://10.0.0.1:65536", "port must be a number from 1 to 65535"],
  ];
  for (const [text, why] of cases) {
    assert.throws(() => parseServerUrl(text), {
      name: "UsageError",
      message: `invalid --server ${JSON.stringify(text)}: ${why}`,
    });
  }
});

Deno.test("parseJoinEndpoint() drops an https:// prefix and a trailing slash, quoting the value as given", () => {
  assert.equal(parseJoinEndpoint("10.0.0.1:6443").hostPort, "10.0.0.1:6443");
  assert.equal(parseJoinEndpoint("https://cp.example:6443/").hostPort, "cp.example:6443");
  assert.throws(() => parseJoinEndpoint("https://10.0.0.1:65536"), {
    name: "UsageError",
    message: 'invalid --server "https://10.0.0.1:65536": port must be a number from 1 to 65535',
  });
  assert.throws(() => parseJoinEndpoint("http://10.0.0.1:6443", "--endpoint"), {
    message: 'invalid --endpoint "http://10.0.0.1:6443": want HOST:PORT, e.g. 10.0.0.1:6443',
  });
});
