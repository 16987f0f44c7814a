/**
 * Certificates as client-go loads them, and the inputs joinkit reads them
 * from: a PEM certificate or bundle, a DER certificate, a kubeconfig (the
 * `certificate-authority-data` of the cluster kubeadm would use) or a
 * `cluster-info` ConfigMap (its `data.kubeconfig`).
 *
 * PEM is read as `certutil.ParseCertsPEM` reads it (c-g `util/cert/pem.go`),
 * so what joinkit pins or embeds is exactly the set Go would load. The X.509
 * parser (`cert_info.ts`) and the YAML reader are imported lazily: this
 * module stays light for `ca hash` and `join-command`'s start-up.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import type { Cert } from "./cert_info.ts";
import { certificateParts } from "./der.ts";
import { InputError } from "../base/errors.ts";
import { isObject } from "../base/object.ts";
import { decodePem, eachPemBlock, encodePem, hasHeaders, looksLikePem } from "./pem.ts";

/** `ParseCertsPEM`'s error when no certificate was found (Ed25519 ones count too). */
export const NO_CERTIFICATES = "data does not contain any valid RSA or ECDSA certificates";

/** One input to read certificates from. */
export interface CertInput {
  /** Its name in messages (a path or `stdin`). */
  name: string;
  /** Its content as text. */
  text: string;
  /** Its raw bytes. */
  bytes: Uint8Array;
}

/** Options for {@link extractCertificates}. */
export interface ExtractOptions {
  /**
   * Inspect everything: every cluster's `certificate-authority-data`, then
   * every user's `client-certificate-data`. Without it a kubeconfig gives the
   * CA of the cluster kubeadm chooses (`GetClusterFromKubeConfig`).
   */
  includeClient?: boolean;
}

/** Bytes as the Latin-1 string `pem.Decode` can walk byte for byte. */
function pemText(data: string | Uint8Array): string {
  return typeof data === "string"
    ? data
    : Buffer.from(data.buffer, data.byteOffset, data.length).toString("latin1");
}

/** Why {@link parseCertsPem} found nothing: the PEM block types it saw, for the message. */
function foundTypes(text: string): string {
  const types = [...new Set(decodePem(text).map((b) => b.type))];
  return types.length ? ` (found ${types.join(", ")})` : "";
}

/**
 * client-go's `certutil.ParseCertsPEM`: every PEM block (Go's `pem.Decode`:
 * a malformed block is not there at all) whose type is exactly `CERTIFICATE`
 * and that has no headers is parsed with `parse` (Go's
 * `x509.ParseCertificate`); other blocks are skipped. The first certificate
 * that does not parse fails the whole bundle with the parser's error; no
 * certificate at all fails with {@link NO_CERTIFICATES}. Errors are
 * `InputError`s carrying Go's text only (callers add where it came from).
 *
 * The parser is a parameter so that this module never loads the X.509
 * library eagerly; {@link loadCertsPem} supplies `cert_info.ts`'s.
 *
 * @example
 * ```ts ignore
 * import { parseCertificate } from "./cert_info.ts";
 * parseCertsPem(pemText, parseCertificate).length; // 2 for a two-certificate bundle
 * ```
 */
export function parseCertsPem<T>(
  data: string | Uint8Array,
  parse: (der: Uint8Array) => T,
): T[] {
  const certs: T[] = [];
  if (eachPemCert(data, parse, "", (c) => certs.push(c)) === 0) {
    throw new InputError(NO_CERTIFICATES);
  }
  return certs;
}

/**
 * {@link parseCertsPem}'s certificates handed to `each` one by one as they
 * are parsed (none held); returns how many (0: none, not an error here). A
 * parse error is an `InputError` with the parser's text after `prefix`;
 * what `each` throws goes through as it is.
 */
function eachPemCert<T>(
  data: string | Uint8Array,
  parse: (der: Uint8Array) => T,
  prefix: string,
  each: (cert: T) => void,
  text: string = pemText(data),
): number {
  let count = 0;
  // Bytes are their own Latin-1 text: bodies are decoded from them, not from a copy.
  eachPemBlock(text, (block) => {
    if (block.type !== "CERTIFICATE" || hasHeaders(block)) return;
    let cert: T;
    try {
      cert = parse(block.der);
    } catch (e) {
      throw new InputError(prefix + (e instanceof Error ? e.message : String(e)));
    }
    count++;
    each(cert);
  }, typeof data === "string" ? undefined : data);
  return count;
}

/**
 * {@link parseCertsPem} with `cert_info.ts`'s parser, loaded on first use;
 * errors name `source`: `ca.crt: x509: malformed certificate`, or
 * `ca.crt: no certificate found (found EC PRIVATE KEY): data does not contain …`.
 *
 * @example
 * ```ts ignore
 * const certs = await loadCertsPem(text, "ca.crt");
 * ```
 */
export async function loadCertsPem(data: string | Uint8Array, source: string): Promise<Cert[]> {
  const { parseCertificate } = await import("./cert_info.ts");
  return certsPemFrom(data, source, parseCertificate);
}

/** {@link parseCertsPem} with one-line errors naming `source`. */
export function certsPemFrom<T>(
  data: string | Uint8Array,
  source: string,
  parse: (der: Uint8Array) => T,
): T[] {
  try {
    return parseCertsPem(data, parse);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    if (e.message === NO_CERTIFICATES) {
      throw new InputError(
        `${source}: no certificate found${foundTypes(pemText(data))}: ${NO_CERTIFICATES}`,
      );
    }
    throw new InputError(`${source}: ${e.message}`);
  }
}

/** kubeadm's text for a cluster CA that is not a CA (`certs` phase, base name `ca`). */
export const NOT_A_CA = "ca certificate is not a certificate authority";

/** A cluster CA bundle read from a `--ca` file. */
export interface ClusterCa {
  /** The certificates Go loads from the file, in order. */
  certs: Cert[];
  /** Their DER. */
  ders: Uint8Array[];
  /** Exactly those certificates re-encoded as PEM (nothing Go skipped). */
  pem: Uint8Array;
}

/**
 * Reads a `--ca` file given as the cluster CA: the certificates Go's
 * `ParseCertsPEM` loads (a bundle Go cannot load is refused, naming
 * `source`), the first of which must be a CA, as kubeadm requires of
 * `ca.crt` (`<base name> certificate is not a certificate authority`; kubeadm
 * loads a bundle and checks its first certificate).
 *
 * @example
 * ```ts ignore
 * const certs = await loadClusterCa(fs.readFileSync("ca.crt"), "ca.crt");
 * ```
 */
export async function loadClusterCa(data: string | Uint8Array, source: string): Promise<Cert[]> {
  const { isCa } = await import("./cert_info.ts");
  const certs = await loadCertsPem(data, source);
  if (!isCa(certs[0]!)) throw new InputError(`${source}: ${NOT_A_CA}`);
  return certs;
}

/**
 * {@link loadClusterCa} for a CA that will be embedded in a kubeconfig: any
 * PEM block other than certificates (e.g. a private key pasted into the
 * file) is refused too, so it can never end up there.
 *
 * @example
 * ```ts ignore
 * const ca = await readClusterCa(fs.readFileSync("ca.crt"), "ca.crt");
 * ```
 */
export async function readClusterCa(data: string | Uint8Array, source: string): Promise<ClusterCa> {
  const certs = await loadClusterCa(data, source);
  const other = decodePem(pemText(data)).find((b) => b.type !== "CERTIFICATE");
  if (other) {
    throw new InputError(
      `${source}: holds a ${other.type} block besides the certificates; refusing to embed it`,
    );
  }
  const ders = certs.map((c) => c.der);
  const pem = ders.map((der) => encodePem("CERTIFICATE", der)).join("");
  return { certs, ders, pem: new Uint8Array(Buffer.from(pem, "utf8")) };
}

/**
 * The DER certificates of a PEM text, with `ParseCertsPEM`'s block rules
 * but only a structural check of each certificate (no X.509 library): for
 * callers that need the bytes, not Go's full verdict.
 */
export function certificatesFromPem(text: string, source: string): Uint8Array[] {
  return certsPemFrom(text, source, (der) => {
    try {
      certificateParts(der);
    } catch (e) {
      throw new InputError(`invalid certificate: ${(e as Error).message}`);
    }
    return der;
  });
}

function isBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 4096);
  for (let i = 0; i < n; i++) {
    const c = bytes[i]!;
    if (c === 0 || (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d)) return true;
  }
  return false;
}

/** Certificates from a kubeconfig's text (`source` names it in messages). */
async function fromKubeconfig(
  text: string,
  source: string,
  opts: ExtractOptions,
): Promise<Cert[]> {
  const { parseKubeconfig, getClusterFromKubeConfig } = await import("../k8s/kubeconfig_read.ts");
  const config = parseKubeconfig(text, source);
  if (opts.includeClient) {
    const out: Cert[] = [];
    for (const c of config.clusters) {
      if (c.caData.length === 0) continue;
      const where = `${source}: cluster ${JSON.stringify(c.name)} certificate-authority-data`;
      out.push(...await loadCertsPem(c.caData, where));
    }
    for (const u of config.users) {
      if (u.clientCertData.length === 0) continue;
      const where = `${source}: user ${JSON.stringify(u.name)} client-certificate-data`;
      out.push(...await loadCertsPem(u.clientCertData, where));
    }
    if (out.length === 0) {
      throw new InputError(`${source}: kubeconfig has no certificate-authority-data`);
    }
    return out;
  }
  let chosen;
  try {
    chosen = getClusterFromKubeConfig(config);
  } catch (e) {
    throw new InputError(`${source}: ${(e as Error).message}`);
  }
  const { name, cluster } = chosen;
  if (cluster.caData.length === 0) {
    throw new InputError(
      cluster.caFile
        ? `${source}: kubeconfig refers to certificate-authority file ${
          JSON.stringify(cluster.caFile)
        }; pass that file instead`
        : `${source}: kubeconfig has no certificate-authority-data`,
    );
  }
  return await loadCertsPem(
    cluster.caData,
    `${source}: cluster ${JSON.stringify(name)} certificate-authority-data`,
  );
}

/**
 * The DER certificates in an input, in order, parsed by Go's rules:
 * - PEM: `ParseCertsPEM` (see {@link parseCertsPem});
 * - DER: one certificate;
 * - kubeconfig (`kind: Config`): loaded as `clientcmd.Load` does; the CA data
 *   of the cluster kubeadm chooses (`GetClusterFromKubeConfig`), as
 *   `kubeadm token create --print-join-command` reads admin.conf; with
 *   `includeClient`, every cluster's CA and every user's client certificate;
 * - ConfigMap (e.g. `cluster-info`): the kubeconfig in `data.kubeconfig`.
 *
 * Errors are one line naming `input.name`.
 *
 * @example
 * ```ts ignore
 * const certs = await extractCertificates({ name: "ca.crt", text, bytes });
 * ```
 */
export async function extractCertificates(
  input: CertInput,
  opts: ExtractOptions = {},
): Promise<Uint8Array[]> {
  return (await extractCerts(input, opts)).map((c) => c.der);
}

/**
 * {@link extractCerts} handing each certificate to `each` as it is parsed:
 * a PEM input's certificates one by one (none held, so a bundle of
 * thousands is never in memory at once), other inputs' after they are all
 * read. The same certificates, in the same order, with the same errors;
 * returns how many. What `each` throws goes through as it is.
 *
 * @example
 * ```ts ignore
 * await eachCert(input, { includeClient: true }, (c) => print(c));
 * ```
 */
export async function eachCert(
  input: CertInput,
  opts: ExtractOptions,
  each: (cert: Cert) => void,
): Promise<number> {
  // Only the bytes are read here (a piece of a long file decodes its text only if asked):
  // their Latin-1 reading holds the ASCII marker looksLikePem looks for exactly where the
  // decoded text does, and it is the text the PEM blocks are read from anyway.
  const { name, bytes } = input;
  const latin1 = pemText(bytes);
  if (!looksLikePem(latin1)) {
    const certs = await extractCerts(input, opts);
    for (const c of certs) each(c);
    return certs.length;
  }
  const { parseCertificate } = await import("./cert_info.ts");
  // certsPemFrom's texts: `<name>: <parser's error>`, or no certificate at all.
  const count = eachPemCert(bytes, parseCertificate, name + ": ", each, latin1);
  if (count === 0) {
    throw new InputError(
      `${name}: no certificate found${foundTypes(latin1)}: ${NO_CERTIFICATES}`,
    );
  }
  return count;
}

/** {@link extractCertificates}, the parsed certificates. */
export async function extractCerts(
  input: CertInput,
  opts: ExtractOptions = {},
): Promise<Cert[]> {
  const { name, text, bytes } = input;
  if (looksLikePem(text)) return await loadCertsPem(bytes, name);
  if (bytes.length === 0 || text.trim() === "") throw new InputError(`${name}: empty input`);
  if (bytes[0] === 0x30 && isBinary(bytes)) {
    const { parseCertificate } = await import("./cert_info.ts");
    try {
      return [parseCertificate(bytes)];
    } catch (e) {
      throw new InputError(`${name}: invalid DER certificate: ${(e as Error).message}`);
    }
  }
  if (isBinary(bytes)) {
    throw new InputError(
      `${name}: not a certificate (expected PEM, DER, a kubeconfig or a cluster-info ConfigMap)`,
    );
  }
  const { parseManifests } = await import("../k8s/manifest.ts");
  let objects: Record<string, unknown>[];
  try {
    objects = parseManifests(text, name) as Record<string, unknown>[];
  } catch {
    objects = [];
  }
  const out: Cert[] = [];
  for (const obj of objects) {
    if (obj.kind === "Config" || (obj.kind === undefined && Array.isArray(obj.clusters))) {
      // clientcmd.Load reads the first YAML document; a stream's others are re-serialised.
      const own = objects.length === 1 ? text : JSON.stringify(obj);
      out.push(...await fromKubeconfig(own, name, opts));
    } else if (obj.kind === "ConfigMap") {
      const inner = isObject(obj.data) ? obj.data.kubeconfig : undefined;
      if (typeof inner !== "string") {
        throw new InputError(`${name}: ConfigMap has no data.kubeconfig`);
      }
      out.push(...await fromKubeconfig(inner, `${name}: data.kubeconfig`, opts));
    }
  }
  if (out.length === 0) {
    throw new InputError(
      `${name}: no certificate found (expected PEM, DER, a kubeconfig or a cluster-info ConfigMap)`,
    );
  }
  return out;
}
