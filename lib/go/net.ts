/**
 * Go's `net.SplitHostPort`, with its `*net.AddrError` texts.
 *
 * @module
 */

/** What {@link goSplitHostPort} found. */
export type HostPort = { ok: true; host: string; port: string } | { ok: false; error: string };

/**
 * `net.SplitHostPort(hostport)`. Errors read `address <hostport>: <why>`
 * (or just `<why>` for an empty input), as `AddrError.Error()` prints them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { goSplitHostPort } from "./net.ts";
 * assert.deepEqual(goSplitHostPort("192.168.122.100"), {
 *   ok: false,
 *   error: "address 192.168.122.100: missing port in address",
 * });
 * ```
 */
export function goSplitHostPort(hostport: string): HostPort {
  const fail = (why: string): HostPort => ({
    ok: false,
    error: hostport === "" ? why : `address ${hostport}: ${why}`,
  });
  const missingPort = "missing port in address";
  const tooManyColons = "too many colons in address";
  let j = 0, k = 0;
  const i = hostport.lastIndexOf(":");
  if (i < 0) return fail(missingPort);
  let host: string;
  if (hostport[0] === "[") {
    const end = hostport.indexOf("]");
    if (end < 0) return fail("missing ']' in address");
    if (end + 1 === hostport.length) return fail(missingPort);
    if (end + 1 !== i) return fail(hostport[end + 1] === ":" ? tooManyColons : missingPort);
    host = hostport.slice(1, end);
    j = 1;
    k = end + 1;
  } else {
    host = hostport.slice(0, i);
    if (host.includes(":")) return fail(tooManyColons);
  }
  if (hostport.slice(j).includes("[")) return fail("unexpected '[' in address");
  if (hostport.slice(k).includes("]")) return fail("unexpected ']' in address");
  return { ok: true, host, port: hostport.slice(i + 1) };
}
