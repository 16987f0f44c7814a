/**
 * joinkit's one flag vocabulary. Every flag any command takes is defined here
 * once: its name, short form, the value syntax its help shows, its help line,
 * the old names it still answers to, and (through the typed readers below)
 * how its value is parsed. A malformed flag value is always a
 * {@link UsageError} (exit 2), with one message per kind of value, and is
 * reported before a missing argument or required flag, as cobra orders them
 * (see {@link probeFlags}).
 *
 * A command picks its flags by name with {@link flagSet}, which gives both
 * the `node:util` `parseArgs` options and the generated "Flags:" section of
 * its help; the command's usage, description and examples stay hand-written.
 *
 * @module
 */

import { InputError, JoinkitError, UsageError } from "../lib/base/errors.ts";
import { parseDuration } from "../lib/go/duration.ts";
import { parseRfc3339 } from "../lib/go/time.ts";
import { parseJoinEndpoint, parseServerUrl, type ServerAddress } from "../lib/k8s/server_url.ts";
import { PinSet } from "../lib/pki/pin.ts";
import { parseToken, type Token } from "../lib/tokens/token.ts";
import type { Context, Flags, Options } from "./_command.ts";
import { materializeSecretFlag, SECRET_FILE_FLAGS } from "./_secret_input.ts";

/** An old name a flag still answers to, hidden from help but listed under it. */
export interface FlagAlias {
  /** The old long name. */
  name: string;
  /** The commands that had it (only they accept it). */
  commands: readonly string[];
}

/** One flag of the vocabulary. */
export interface FlagDef {
  /** Long name, without `--`. */
  name: string;
  /** One-letter short form, without `-`. */
  short?: string;
  /** The value syntax shown in help (`DURATION`); absent for a boolean flag. */
  value?: string;
  /** Repeatable: every value is kept, in order. */
  multiple?: boolean;
  /** The help line (a command may give its own, e.g. to name its default). */
  help: string;
  /** Old names that still work (deprecated; listed, not advertised). */
  aliases?: readonly FlagAlias[];
}

function def(name: string, value: string | undefined, help: string, more: Partial<FlagDef> = {}) {
  return { name, ...(value === undefined ? {} : { value }), help, ...more } as FlagDef;
}

/** Every flag of every command, by name. */
export const VOCABULARY: Readonly<Record<string, FlagDef>> = Object.fromEntries(
  [
    // Global flags: the dispatcher adds them to every command.
    def("now", "RFC3339", "the clock: the time every time-dependent output is made for", {
      aliases: [{ name: "at", commands: ["cert verify"] }],
    }),
    def("help", undefined, "show help", { short: "h" }),
    def("version", undefined, "print the version", { short: "V" }),
    // Command flags, alphabetical.
    def(
      "age-recipient",
      "AGE1...",
      "SOPS: encrypt Secrets for this age X25519 recipient (age1...), repeatable",
      { multiple: true },
    ),
    def(
      "allow-empty-data",
      undefined,
      "seal a Secret with neither data nor stringData (kubeseal's flag)",
    ),
    def("allowed-dns-names", "N", "approval policy: most DNS SANs a serving CSR may carry"),
    def("api-version", "VERSION", "kubeadm config API version: v1beta4 (default) or v1beta3"),
    def(
      "apiserver-advertise-address",
      "ADDR",
      "control-plane join: the IP the node's API server advertises",
    ),
    def("apiserver-bind-port", "PORT", "control-plane join: the node's API server port (6443)"),
    def(
      "apiserver-cert-extra-sans",
      "SANS",
      "extra API server certificate SANs (IPs or DNS names), repeatable or comma-separated",
      { multiple: true },
    ),
    def("approve", undefined, "add the Approved condition to objects that lack it"),
    def("bypass-dns-resolution", undefined, "approval policy: do not resolve DNS SANs"),
    def(
      "bypass-hostname-check",
      undefined,
      "approval policy: DNS SANs need not start with the node name",
    ),
    def(
      "ca-certificate-validity-period",
      "DURATION",
      "CA certificate lifetime (kubeadm caCertificateValidityPeriod, 87600h)",
    ),
    def(
      "certificate-validity-period",
      "DURATION",
      "certificate lifetime (kubeadm certificateValidityPeriod, 8760h)",
    ),
    def("ca", "FILE", "PEM CA certificate or bundle"),
    def("ca-key", "FILE", "the CA's private key (PEM: PKCS#1, SEC 1 or PKCS#8; not encrypted)"),
    def(
      "certificate-key",
      "KEY",
      "the key from 'kubeadm init phase upload-certs --upload-certs' (64 hex)",
    ),
    def("cert", "FILE", "the Sealed Secrets controller's certificate (kubeseal --fetch-cert)"),
    def(
      "certificate-key-file",
      "FILE|-",
      "--certificate-key from FILE or stdin: argv is visible to every\nuser of the host (ps); refused if group/world-readable",
    ),
    def("cert-dir", "DIR", "the kubelet's --cert-dir on the node (absolute)"),
    def("cluster-info", "FILE", "a cluster-info ConfigMap"),
    def("cluster-name", "NAME", "cluster name"),
    def("cn", "NAME", "subject common name"),
    def("config", "FILE", "a kubeadm configuration file (InitConfiguration stream)"),
    def("control-plane", undefined, "join as a control-plane node"),
    def("count", "N", "how many"),
    def("credentials", "FORM", "how a kubeconfig carries the client credentials: embedded|file"),
    def(
      "control-plane-endpoint",
      "HOST[:PORT]",
      "a stable IP address or DNS name for the control plane (kubeadm controlPlaneEndpoint)",
    ),
    def("cri-socket", "SOCKET", "the node's CRI socket (unix:///path; a bare /path gets unix://)"),
    def("deny", undefined, "add the Denied condition to CSRs the policy refuses"),
    def("description", "TEXT", "human-readable description"),
    def("discovery-file", "PATH", "file discovery: the kubeconfig's path or https URL on the node"),
    def(
      "discovery-kubeconfig",
      "FILE",
      "the kubeconfig a file-discovery join reads, carried to its path on the node",
    ),
    def(
      "discovery-token-ca-cert-hash",
      "HASH",
      "sha256:<hex> CA public-key pin, repeatable or comma-separated",
      {
        multiple: true,
        aliases: [{
          name: "ca-cert-hash",
          commands: ["ca pin-check", "cluster-info verify", "kubeconfig bootstrap"],
        }],
      },
    ),
    def(
      "discovery-token-unsafe-skip-ca-verification",
      undefined,
      "accept a cluster-info without CA pins",
      {
        aliases: [{
          name: "unsafe-skip-ca-verification",
          commands: ["cluster-info verify", "kubeconfig bootstrap"],
        }],
      },
    ),
    def("dns", "NAME", "DNS SAN, repeatable", { multiple: true }),
    def("encryption-algorithm", "ALG", "key algorithm: RSA-2048|RSA-3072|RSA-4096|ECDSA-P256"),
    def("etcd-ca", "FILE", "the etcd CA certificate (etcd/ca.crt)"),
    def("etcd-ca-key", "FILE", "the etcd CA's private key (etcd/ca.key)"),
    def("etcd-cafile", "FILE", "external etcd: the CA file (etcd.external.caFile)"),
    def("etcd-certfile", "FILE", "external etcd: the client certificate (etcd.external.certFile)"),
    def(
      "etcd-peer-cert-extra-sans",
      "SANS",
      "extra etcd peer certificate SANs (etcd.local.peerCertSANs), repeatable or comma-separated",
      { multiple: true },
    ),
    def(
      "etcd-server-cert-extra-sans",
      "SANS",
      "extra etcd server certificate SANs (etcd.local.serverCertSANs), repeatable or comma-separated",
      { multiple: true },
    ),
    def("etcd-keyfile", "FILE", "external etcd: the client key (etcd.external.keyFile)"),
    def("expires", "RFC3339", "absolute expiry instead of --ttl (mutually exclusive)"),
    def(
      "expiring-within",
      "D|P%",
      "exit 3 when a certificate expires within a Go duration (720h) or is P % through its life",
    ),
    def("external-ca", undefined, "external CA mode: the CA keys may be absent from pki/"),
    def("force", undefined, "overwrite existing files"),
    def("format", "FORMAT", "payload format"),
    def("front-proxy-ca", "FILE", "the front-proxy CA certificate (front-proxy-ca.crt)"),
    def("front-proxy-ca-key", "FILE", "the front-proxy CA's private key (front-proxy-ca.key)"),
    def("groups", "LIST", "groups, repeatable or comma-separated", { multiple: true }),
    def("hosts", "FILE", "approval policy: hosts(5) file that stands in for DNS"),
    def(
      "ignore-non-system-node",
      undefined,
      "approval policy: leave CSRs of non-node users pending",
    ),
    def("ip", "ADDR", "IP SAN, repeatable", { multiple: true }),
    def("key", "FILE", "private key that must match (PEM)"),
    def(
      "join-file",
      "FILE",
      "write the join command (it holds the token) to FILE, 0600 (missing directories created 0700)",
    ),
    def("key-type", "TYPE", "key algorithm"),
    def("kubelet-arg", "NAME=VALUE", "kubelet extra argument (name without dashes), repeatable", {
      multiple: true,
    }),
    def("max-expiration-sec", "N", "approval policy: largest spec.expirationSeconds approved"),
    def("node", "NAME", "node name", { multiple: true }),
    def(
      "out",
      "FILE",
      "write the output to FILE (atomically; missing directories created 0700) instead of stdout",
    ),
    def(
      "out-dir",
      "DIR",
      "directory to write the files into (created 0700 with missing parents)",
    ),
    def("output", "FORMAT", "output format", { short: "o" }),
    def("node-name", "NAME", "the node name (kubeadm nodeRegistration.name)"),
    def("owner-uid", "UID", "metadata.uid of the owning object, for its ownerReference"),
    def("pki-dir", "DIR", "a kubeadm certificates directory (/etc/kubernetes/pki)"),
    def("policy", "FILE", "approval policy file (YAML)"),
    def("provider-ip-prefixes", "CIDRS", "approval policy: allowed IP ranges, comma-separated"),
    def("provider-regex", "REGEX", "approval policy: RE2 pattern every DNS SAN must match"),
    def("requester", "USER", "the user who posts the CSR (spec.username), for the approver"),
    def("scope", "SCOPE", "Sealed Secrets scope: strict (default), namespace-wide, cluster-wide"),
    def(
      "seal-cert",
      "FILE",
      "write Secrets as SealedSecrets for this controller certificate",
    ),
    def(
      "seal-scope",
      "SCOPE",
      "scope of --seal-cert: strict (default), namespace-wide, cluster-wide",
    ),
    def("secrets", "PATH", "bootstrap-token Secret manifests (files, dirs or -), repeatable", {
      multiple: true,
    }),
    def("server", "URL", "API server: https://HOST:PORT (or HOST:PORT, https implied)"),
    def("serving", undefined, "a kubelet serving CSR instead of a client CSR"),
    def(
      "service-cidr",
      "CIDR",
      "the service subnet; its first address + 1 is the API server's service IP (10.96.0.0/12)",
    ),
    def("service-dns-domain", "DOMAIN", "the services' DNS domain (cluster.local)"),
    def("signer-name", "NAME", "the signer whose rules apply"),
    def("skip-deny-step", undefined, "approval policy: never deny, leave refused CSRs pending"),
    def("string-data", undefined, "write stringData (plain text) instead of base64 data"),
    def("taint", "KEY[=VALUE]:EFFECT", "node taint, repeatable; '' alone: no taints at all", {
      multiple: true,
    }),
    def("tls-bootstrap-token", "TOKEN", "the token for the TLS bootstrap (file discovery)"),
    def("token", "TOKEN", "bootstrap token [a-z0-9]{6}.[a-z0-9]{16}", { multiple: true }),
    def(
      "token-file",
      "FILE|-",
      "the bootstrap token from FILE or stdin: argv is visible to every\nuser of the host (ps); one token; refused if group/world-readable",
    ),
    def("ttl", "DURATION", "lifetime, Go duration syntax (1s, 2m, 3h)", {
      aliases: [
        { name: "validity", commands: ["ca create"] },
        { name: "duration", commands: ["csr sign"] },
        // Seconds, not a duration: csr create reads it apart.
        { name: "expiration-seconds", commands: ["csr create"] },
      ],
    }),
    def(
      "tls-bootstrap-token-file",
      "FILE|-",
      "--tls-bootstrap-token from FILE or stdin: argv is visible to\nevery user of the host (ps); refused if group/world-readable",
    ),
    def("uid", "UID", "user ID"),
    def("usages", "LIST", "usage strings, repeatable or comma-separated", { multiple: true }),
    def("user", "NAME", "user name"),
    def(
      "with-discovery-file",
      undefined,
      "also write discovery.conf, the kubeconfig for kubeadm join --discovery-file",
    ),
  ].map((d) => [d.name, d]),
);

/** The flags the dispatcher adds to every command. */
export const GLOBAL_FLAGS = ["now", "help", "version"] as const;

/** What a command picked: its `parseArgs` options and its generated "Flags:" help section. */
export interface FlagSet {
  /** The command's flags, canonical names, in help order. */
  names: readonly string[];
  /** For `parseArgs`: the flags, their short forms and the old names this command accepts. */
  options: Options;
  /** The "Flags:" section (ends with a newline). */
  help: string;
}

/**
 * A command's flags, picked from {@link VOCABULARY} by name; `[name, help]`
 * gives this command's own help line (its default, what the flag means here).
 * Naming a flag the vocabulary lacks is a programming error.
 */
export function flagSet(
  command: string,
  picks: readonly (string | readonly [string, string])[],
): FlagSet {
  const options: Options = {};
  const rows: [string, string][] = [];
  const old: string[] = [];
  const names: string[] = [];
  for (const pick of picks) {
    const [name, helpLine] = typeof pick === "string" ? [pick, undefined] : pick;
    const d = VOCABULARY[name];
    if (!d) throw new Error(`flag --${name} is not in the vocabulary (commands/_flags.ts)`);
    names.push(name);
    const kind = d.value === undefined ? "boolean" : "string";
    const multiple = d.multiple === true;
    // Global flags are the dispatcher's; only their old names are the command's.
    if (!(GLOBAL_FLAGS as readonly string[]).includes(name)) {
      options[name] = {
        type: kind,
        ...(multiple ? { multiple } : {}),
        ...(d.short ? { short: d.short } : {}),
      };
      rows.push([
        `${d.short ? `-${d.short}, ` : "    "}--${name}${d.value ? ` ${d.value}` : ""}`,
        helpLine ?? d.help,
      ]);
      // A flag that carries a secret brings its file form (--token-file), unless picked.
      const fileForm = SECRET_FILE_FLAGS[name];
      const picked = (n: string) => picks.some((p) => (typeof p === "string" ? p : p[0]) === n);
      if (fileForm !== undefined && !picked(fileForm)) {
        const f = VOCABULARY[fileForm]!;
        names.push(fileForm);
        options[fileForm] = { type: "string" };
        rows.push([`    --${fileForm} ${f.value}`, f.help]);
      }
    }
    for (const a of d.aliases ?? []) {
      if (!a.commands.includes(command)) continue;
      options[a.name] = { type: kind, ...(multiple ? { multiple } : {}) };
      old.push(`--${a.name} is --${name}`);
    }
  }
  return { names, options, help: renderFlagRows(rows, old) };
}

/** Widest flag column; a longer flag has its help on the next line. */
const MAX_FLAG_COLUMN = 28;

function renderFlagRows(rows: readonly [string, string][], old: readonly string[]): string {
  const fits = rows.map(([l]) => l.length).filter((n) => n <= MAX_FLAG_COLUMN);
  const width = Math.max(0, ...fits) + 2;
  const pad = " ".repeat(2 + width);
  const lines = ["Flags:"];
  for (const [left, help] of rows) {
    const [first, ...rest] = help.split("\n");
    if (left.length > MAX_FLAG_COLUMN) lines.push(`  ${left}`, pad + first);
    else lines.push(`  ${left.padEnd(width)}${first}`);
    for (const r of rest) lines.push(pad + r);
  }
  if (old.length) {
    lines.push("Old names, still accepted (deprecated):");
    for (const o of old) lines.push(`  ${o}`);
  }
  return lines.join("\n") + "\n";
}

/** Every name (canonical and old) a vocabulary flag answers to in `command`, canonical first. */
function namesOf(name: string, command?: string): string[] {
  const d = VOCABULARY[name];
  const aliases = (d?.aliases ?? [])
    .filter((a) => command === undefined || a.commands.includes(command))
    .map((a) => a.name);
  return [name, ...aliases];
}

/** The flag names given on the command line for `name` (its canonical name or old ones). */
function given(flags: Flags, name: string): string[] {
  materializeSecretFlag(flags, name, VOCABULARY[name]?.multiple === true);
  return namesOf(name).filter((n) => flags[n] !== undefined);
}

/** The name the user gave `name` under (`--old-name` or `--name`), for messages. */
export function givenName(flags: Flags, name: string): string {
  return `--${given(flags, name)[0] ?? name}`;
}

/**
 * A single-valued string flag under its canonical name or an old one, with
 * the name the user typed; giving both is a usage error.
 */
function single(flags: Flags, name: string): { flag: string; value: string } | undefined {
  return valueError(() => singleValue(flags, name));
}

function singleValue(flags: Flags, name: string): { flag: string; value: string } | undefined {
  const used = given(flags, name);
  if (used.length === 0) return undefined;
  if (used.length > 1) {
    throw new UsageError(`--${used[0]} and --${used[1]} are the same flag: give one`);
  }
  const flag = used[0]!;
  const v = flags[flag];
  if (Array.isArray(v)) {
    if (v.length > 1) throw new UsageError(`--${flag} given more than once`);
    return v.length ? { flag, value: String(v[0]) } : undefined;
  }
  return typeof v === "string" ? { flag, value: v } : undefined;
}

// ---------------------------------------------------------------------------
// Cobra's order: a malformed flag value is reported before a missing argument or
// required flag. A command reads its flags in its own order, so when it stops at a
// missing one, the dispatcher runs it again as a probe (cli.ts): the missing readers
// then stand in a placeholder instead of throwing, writes are refused (_io.ts), and
// the first malformed value a reader meets is reported instead.

/** Flags objects of probe runs (see {@link probeFlags}). */
const PROBES = new WeakSet<Flags>();
/** Errors a reader threw for a malformed value of a flag that was given. */
const VALUE_ERRORS = new WeakSet<Error>();
/** Errors that say an argument or a required flag is missing, or an argument too many. */
const MISSING_ERRORS = new WeakSet<Error>();

/** Marks `flags` as a probe run's: the missing readers stand in placeholders. */
export function probeFlags(flags: Flags): Flags {
  const copy = { ...flags };
  PROBES.add(copy);
  return copy;
}

/** Whether `flags` belong to a probe run. */
export function isProbe(flags: Flags): boolean {
  return PROBES.has(flags);
}

/**
 * Whether `e`, thrown in a probe run with `flags`, refuses a malformed value
 * of a given flag: a reader's refusal here, or a command's own usage error
 * (a value parsed in the command or in lib/, e.g. `token create --ttl`)
 * that names only flags that were given and nothing of a placeholder.
 */
export function isFlagValueError(e: unknown, flags?: Flags): boolean {
  if (!(e instanceof Error)) return false;
  if (VALUE_ERRORS.has(e)) return true;
  if (flags === undefined || !(e instanceof UsageError) || e.message.includes(PLACEHOLDER)) {
    return false;
  }
  const named = [...e.message.matchAll(/(?<![\w-])--([a-z][a-z0-9-]*)/g)].map((m) => m[1]!);
  return named.length > 0 && named.every((n) => flags[n] !== undefined);
}

/**
 * Whether `e` says an argument or required flag is missing: thrown by the
 * readers below, or a command's own `missing required flag` / `missing
 * argument` usage error.
 */
export function isMissingError(e: unknown): boolean {
  return e instanceof Error && (MISSING_ERRORS.has(e) ||
    (e instanceof UsageError && /^missing (?:argument|required flag)\b/.test(e.message)));
}

function missing(message: string): UsageError {
  const e = new UsageError(message);
  MISSING_ERRORS.add(e);
  return e;
}

/** A value error thrown as it is, marked as a flag value's (same text, same exit code). */
function valueError<T>(read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof JoinkitError) VALUE_ERRORS.add(e);
    throw e;
  }
}

/** What a probe run's missing string flag stands in with: no file or name can hold NUL. */
const PLACEHOLDER = "\0joinkit-probe";

/**
 * Says a required flag (`--secrets`, `--node (or a NODES file)`) is missing:
 * throws, except in a probe run, where the command goes on reading flags.
 */
export function missingFlag(flags: Flags, what: string): void {
  if (!isProbe(flags)) throw missing(`missing required flag ${what}`);
}

// ---------------------------------------------------------------------------
// Readers. Each kind of value has one parser and one error message.

/** A string flag, or `undefined` when absent (old names included). */
export function flagString(flags: Flags, name: string): string | undefined {
  const used = given(flags, name);
  if (used.length > 1) {
    throw valueError(() => {
      throw new UsageError(`--${used[0]} and --${used[1]} are the same flag: give one`);
    });
  }
  const v = flags[used[0] ?? name];
  if (Array.isArray(v)) return v.length ? String(v[v.length - 1]) : undefined;
  return typeof v === "string" ? v : undefined;
}

/** A string flag that must be present. */
export function requireString(flags: Flags, name: string): string {
  const v = flagString(flags, name);
  if (v === undefined) {
    if (isProbe(flags)) return PLACEHOLDER;
    throw missing(`missing required flag --${name}`);
  }
  return v;
}

/**
 * A required string flag parsed by `parse` (a command's own value syntax,
 * e.g. the certificate key), whose refusal counts as a malformed flag
 * value (reported before a missing argument). A probe run stops here when
 * the flag is absent.
 */
export function requireParsed<T>(flags: Flags, name: string, parse: (value: string) => T): T {
  const v = requireString(flags, name);
  if (v === PLACEHOLDER) throw new Error(`probe run: --${name} is missing`);
  return valueError(() => parse(v));
}

/** A string flag that, when given, must not be empty. */
export function flagNonEmpty(flags: Flags, name: string): string | undefined {
  const v = flagString(flags, name);
  if (v === "") throw valueError(() => new UsageError(`--${name} must not be empty`));
  return v;
}

/**
 * A repeatable string flag (its values under the canonical name, then under
 * old names); each value may also hold a comma-separated list when `split`.
 */
export function flagList(flags: Flags, name: string, split = false): string[] {
  materializeSecretFlag(flags, name, VOCABULARY[name]?.multiple === true);
  const raw = namesOf(name).flatMap((n) => {
    const v = flags[n];
    return v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)];
  });
  return split ? raw.flatMap((s) => s.split(",")) : raw;
}

/** A boolean flag (old names included). */
export function flagBool(flags: Flags, name: string): boolean {
  return namesOf(name).some((n) => flags[n] === true);
}

/** A whole-number flag within `[min, max]`, or `fallback` when absent. */
export function flagInt(
  flags: Flags,
  name: string,
  fallback: number,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const g = single(flags, name);
  if (g === undefined) return fallback;
  const v = g.value;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
    throw marked(
      `--${g.flag} must be a whole number from ${min} to ${max}, got ${JSON.stringify(v)}`,
    );
  }
  return Number(v);
}

/** One of a fixed set of values, or `fallback` when absent. */
export function flagChoice<T extends string>(
  flags: Flags,
  name: string,
  choices: readonly T[],
  fallback: T,
): T {
  const g = single(flags, name);
  if (g === undefined) return fallback;
  if (!(choices as readonly string[]).includes(g.value)) {
    throw marked(
      `--${g.flag} must be one of ${choices.join("|")}, got ${JSON.stringify(g.value)}`,
    );
  }
  return g.value as T;
}

/** `-o/--output`: one of `formats`, or `fallback` when absent. */
export function outputFormat<T extends string>(
  flags: Flags,
  formats: readonly T[],
  fallback: T,
): T {
  return flagChoice(flags, "output", formats, fallback);
}

/** `-o/--output` for a command that prints nothing (or text) by default: `undefined` when absent. */
export function optionalOutput<T extends string>(
  flags: Flags,
  formats: readonly T[],
): T | undefined {
  if (single(flags, "output") === undefined) return undefined;
  return flagChoice(flags, "output", formats, formats[0]!);
}

/** The message every malformed duration gets (pflag's, as kubeadm prints it for --ttl). */
function durationError(flag: string, value: string, why: string): UsageError {
  return marked(`invalid argument ${JSON.stringify(value)} for "--${flag}" flag: ${why}`);
}

/** A usage error for a malformed value of a flag that was given. */
function marked(message: string): UsageError {
  const e = new UsageError(message);
  VALUE_ERRORS.add(e);
  return e;
}

/**
 * A Go-duration flag in milliseconds (old names included), or `undefined`
 * when absent; below `minMs` is a usage error.
 */
export function flagDuration(flags: Flags, name: string, minMs = 0): number | undefined {
  const g = single(flags, name);
  if (g === undefined) return undefined;
  let ms: number;
  try {
    ms = parseDuration(g.value);
  } catch (e) {
    throw durationError(g.flag, g.value, (e as Error).message);
  }
  if (ms < minMs) {
    throw durationError(
      g.flag,
      g.value,
      minMs === 0 ? "must not be negative" : `must be at least ${minMs / 1000}s`,
    );
  }
  return ms;
}

/** Parses an RFC 3339 flag value (Go's `time.RFC3339`); malformed is a usage error. */
export function parseTimeFlag(text: string, flag: string): Date {
  try {
    return parseRfc3339(text, `--${flag}`);
  } catch (e) {
    if (e instanceof InputError) throw marked(e.message);
    if (e instanceof JoinkitError) VALUE_ERRORS.add(e);
    throw e;
  }
}

/** An RFC 3339 flag, or `undefined` when absent. */
export function flagTime(flags: Flags, name: string): Date | undefined {
  const g = single(flags, name);
  return g === undefined ? undefined : parseTimeFlag(g.value, g.flag);
}

/**
 * The clock a command judges at: `--now` (already parsed by the dispatcher
 * into `ctx.now`), or an old name of it this command accepts (`cert verify
 * --at`), which wins over `--now` as it always did, so old scripts keep
 * their meaning.
 */
export function clockFlag(ctx: Context): Date {
  const old = namesOf("now").slice(1).filter((n) => ctx.flags[n] !== undefined);
  if (old.length === 0) return ctx.now;
  const v = ctx.flags[old[0]!];
  return parseTimeFlag(String(Array.isArray(v) ? v[v.length - 1] : v), old[0]!);
}

/** One `--token` value, parsed at the edge; malformed or repeated is a usage error. */
export function flagToken(flags: Flags): Token | undefined {
  const all = flagList(flags, "token");
  if (all.length > 1) throw marked("--token given more than once");
  return all.length ? valueError(() => parseToken(all[0]!, "--token")) : undefined;
}

/** A `--token` that must be present. */
export function requireToken(flags: Flags): Token {
  const t = flagToken(flags);
  if (t === undefined) {
    if (isProbe(flags)) return parseToken("abcdef.0123456789abcdef", "--token");
    throw missing("missing required flag --token");
  }
  return t;
}

/** Every `--token` (repeatable), parsed; the same ID twice with different secrets is refused. */
export function flagTokens(flags: Flags): Token[] {
  const tokens: Token[] = [];
  for (const text of flagList(flags, "token")) {
    const t = valueError(() => parseToken(text, "--token"));
    const same = tokens.find((x) => x.id === t.id);
    if (same === undefined) tokens.push(t);
    else if (same.secret !== t.secret) {
      // Two secrets for one ID: one Secret would not match the other's signature.
      throw marked(`token ID ${JSON.stringify(t.id)} given twice with different secrets`);
    }
  }
  return tokens;
}

/**
 * `--server`: `https://HOST:PORT`, or `HOST:PORT` with https implied (as
 * kubeadm join takes it); another scheme, a path or a bad host or port is a
 * usage error. The same rule for every command.
 */
export function parseServerFlag(text: string): ServerAddress {
  return valueError(() => {
    if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(text)) return parseServerUrl(text, "--server");
    return parseJoinEndpoint(text, "--server");
  });
}

/** `--server`, required. */
export function requireServer(flags: Flags): ServerAddress {
  if (isProbe(flags) && flagString(flags, "server") === undefined) {
    return parseServerFlag("https://127.0.0.1:6443");
  }
  return parseServerFlag(requireString(flags, "server"));
}

/**
 * The `--discovery-token-ca-cert-hash` pins (old name `--ca-cert-hash`),
 * repeatable or comma-separated, each checked with kubeadm's rules and text;
 * a malformed pin is a usage error.
 */
export function flagPins(flags: Flags): string[] {
  const pins = flagList(flags, "discovery-token-ca-cert-hash", true);
  try {
    new PinSet().allow(...pins);
  } catch (e) {
    throw marked(`invalid discovery token CA certificate hash: ${(e as Error).message}`);
  }
  return pins;
}

/** `--discovery-token-unsafe-skip-ca-verification` (old name `--unsafe-skip-ca-verification`). */
export function flagUnsafe(flags: Flags): boolean {
  return flagBool(flags, "discovery-token-unsafe-skip-ca-verification");
}

/** `--out FILE`, or `undefined`; an empty name is a usage error. */
export function flagOut(flags: Flags): string | undefined {
  return flagNonEmpty(flags, "out");
}

/** `--out-dir DIR`, required; an empty name is a usage error. */
export function requireOutDir(flags: Flags): string {
  const v = requireString(flags, "out-dir");
  if (v === "") throw marked("--out-dir must not be empty");
  return v;
}

/** Checks the number of positional arguments. */
export function expectArgs(ctx: Context, min: number, max: number, what: string): void {
  if (isProbe(ctx.flags)) return;
  if (ctx.args.length < min) throw missing(`missing argument: ${what}`);
  // Cobra checks the argument count after the flags too: a malformed value comes first.
  if (ctx.args.length > max) throw missing(`unexpected argument ${JSON.stringify(ctx.args[max])}`);
}

/**
 * Renders data for `-o json|yaml`: JSON with sorted keys and 4-space indent,
 * YAML as kubectl prints it (both from lib/k8s/manifest.ts, loaded only here).
 */
export async function renderData(value: unknown, format: "json" | "yaml"): Promise<string> {
  const { toJson, toYaml } = await import("../lib/k8s/manifest.ts");
  return format === "json" ? toJson(value) : toYaml(value);
}
