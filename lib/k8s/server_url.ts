/**
 * Validation of API server addresses: `https://HOST:PORT` URLs for
 * kubeconfigs and cluster-info, and the bare `HOST:PORT` kubeadm join takes.
 *
 * @module
 */

import { UsageError } from "../base/errors.ts";

/** A validated API server address. */
export interface ServerAddress {
  /** The host as written (IPv6 in brackets). */
  host: string;
  /** The port, 1–65535. */
  port: number;
  /** `HOST:PORT`, as kubeadm join takes it. */
  hostPort: string;
  /** `https://HOST:PORT`. */
  url: string;
}

const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
const IPV4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

function isIpv6(text: string): boolean {
  try {
    return new URL(`https://[${text}]/`).hostname.length > 2;
  } catch {
    return false;
  }
}

/** Validates `HOST:PORT`; errors quote `shown`, the flag value as the user gave it. */
function hostPort(text: string, what: string, shown: string): ServerAddress {
  const bad = (why: string) => new UsageError(`invalid ${what} ${JSON.stringify(shown)}: ${why}`);
  const m = /^(\[[^\]]*\]|[^:\[\]/]*):([^:/]*)$/.exec(text);
  if (!m) throw bad("want HOST:PORT, e.g. 10.0.0.1:6443");
  const host = m[1]!;
  const portText = m[2]!;
  if (host === "" || host === "[]") throw bad("missing host");
  if (host.startsWith("[")) {
    if (!isIpv6(host.slice(1, -1))) throw bad("invalid IPv6 address");
  } else if (!IPV4.test(host) && (!HOSTNAME.test(host) || /^[\d.]+$/.test(host))) {
    throw bad("invalid host");
  }
  if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) {
    throw bad("port must be a number from 1 to 65535");
  }
  const port = Number(portText);
  const hostPort = `${host}:${portText}`;
  return { host, port, hostPort, url: `https://${hostPort}` };
}

/**
 * Parses the endpoint of a `kubeadm join` line: `HOST:PORT` (IPv6 as
 * `[addr]:port`), where an
 * `https://` prefix and a trailing `/` are dropped, as kubeadm's join-command
 * template does with the kubeconfig's server URL.
 *
 * @example
 * ```ts
 * parseJoinEndpoint("https://10.0.0.1:6443/").hostPort; // "10.0.0.1:6443"
 * ```
 */
export function parseJoinEndpoint(text: string, what = "--server"): ServerAddress {
  return hostPort(text.replace(/^https:\/\//i, "").replace(/\/$/, ""), what, text);
}

/**
 * Parses an API server URL: `https://` is required, then `HOST:PORT`, with
 * nothing after it but an optional `/`. The result's `url` is
 * `https://HOST:PORT` (scheme in lower case, no trailing `/`).
 *
 * @example
 * ```ts
 * parseServerUrl("https://cp.example:6443").hostPort; // "cp.example:6443"
 * ```
 */
export function parseServerUrl(text: string, what = "--server"): ServerAddress {
  if (!/^https:\/\//i.test(text)) {
    throw new UsageError(
      `invalid ${what} ${
        JSON.stringify(text)
      }: must start with https://, e.g. https://10.0.0.1:6443`,
    );
  }
  return hostPort(text.slice("https://".length).replace(/\/$/, ""), what, text);
}
