/**
 * Finds the certificates in an input, whatever shape it comes in: a PEM
 * certificate or bundle, a DER certificate, a kubeconfig (its clusters'
 * `certificate-authority-data`) or a `cluster-info` ConfigMap (its
 * `data.kubeconfig`). PEM and DER never load the YAML parser: it is imported
 * lazily, only for kubeconfigs and ConfigMaps.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { decodeGoBase64 } from "./base64.ts";
import { decodePem, looksLikePem } from "./pem.ts";
import { certificateParts } from "./der.ts";
import { InputError } from "./errors.ts";

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
  /** Also take kubeconfig users' `client-certificate-data` (after the CAs). */
  includeClient?: boolean;
}

/** Checks a DER certificate's structure; returns it. */
function checkCert(der: Uint8Array, where: string): Uint8Array {
  try {
    certificateParts(der);
  } catch (e) {
    throw new InputError(`${where}: invalid certificate: ${(e as Error).message}`);
  }
  return der;
}

/**
 * The certificates in a PEM text, in order; other block types are ignored.
 * Throws `<source>: no certificate found (found <types>)` when there is none.
 */
export function certificatesFromPem(text: string, source: string): Uint8Array[] {
  const blocks = decodePem(text, source);
  const certs = blocks.filter((b) => b.type === "CERTIFICATE");
  if (certs.length === 0) {
    const found = [...new Set(blocks.map((b) => b.type))].join(", ");
    throw new InputError(`${source}: no certificate found${found ? ` (found ${found})` : ""}`);
  }
  return certs.map((b, i) => checkCert(b.der, certs.length > 1 ? `${source}[${i}]` : source));
}

function isBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 4096);
  for (let i = 0; i < n; i++) {
    const c = bytes[i]!;
    if (c === 0 || (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d)) return true;
  }
  return false;
}

function decodeBase64Field(value: unknown, where: string): string {
  if (typeof value !== "string") throw new InputError(`${where}: not a base64 string`);
  const bytes = decodeGoBase64(value.replace(/\s+/g, ""));
  if (bytes === undefined) throw new InputError(`${where}: invalid base64`);
  return Buffer.from(bytes).toString("utf8");
}

// Not manifest.ts's isObject: that module loads YAML, which PEM and DER input must not.
function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v)
    ? v as Record<string, unknown>
    : undefined;
}

/** Certificates from a parsed kubeconfig object. */
function fromKubeconfig(
  obj: Record<string, unknown>,
  source: string,
  opts: ExtractOptions,
): Uint8Array[] {
  const out: Uint8Array[] = [];
  const clusters = Array.isArray(obj.clusters) ? obj.clusters : [];
  const fileRefs: string[] = [];
  for (const entry of clusters) {
    const e = asRecord(entry);
    const cluster = asRecord(e?.cluster);
    const name = typeof e?.name === "string" ? e.name : "";
    const where = `${source}: cluster ${JSON.stringify(name)} certificate-authority-data`;
    if (cluster?.["certificate-authority-data"] !== undefined) {
      out.push(...certificatesFromPem(
        decodeBase64Field(cluster["certificate-authority-data"], where),
        where,
      ));
    } else if (typeof cluster?.["certificate-authority"] === "string") {
      fileRefs.push(cluster["certificate-authority"]);
    }
  }
  if (opts.includeClient) {
    for (const entry of Array.isArray(obj.users) ? obj.users : []) {
      const e = asRecord(entry);
      const user = asRecord(e?.user);
      const name = typeof e?.name === "string" ? e.name : "";
      const where = `${source}: user ${JSON.stringify(name)} client-certificate-data`;
      if (user?.["client-certificate-data"] !== undefined) {
        out.push(...certificatesFromPem(
          decodeBase64Field(user["client-certificate-data"], where),
          where,
        ));
      }
    }
  }
  if (out.length === 0) {
    throw new InputError(
      fileRefs.length
        ? `${source}: kubeconfig refers to certificate-authority file ${
          JSON.stringify(fileRefs[0])
        }; pass that file instead`
        : `${source}: kubeconfig has no certificate-authority-data`,
    );
  }
  return out;
}

/**
 * The DER certificates in an input, in order:
 * - PEM: every `CERTIFICATE` block (others ignored; none → error naming what was found);
 * - DER: one certificate;
 * - kubeconfig (`kind: Config`): each cluster's `certificate-authority-data`,
 *   plus users' `client-certificate-data` with `includeClient`;
 * - ConfigMap (e.g. `cluster-info`): the kubeconfig in `data.kubeconfig`.
 *
 * Errors are one line naming `input.name`.
 *
 * @example
 * ```ts
 * const ders = await extractCertificates({ name: "ca.crt", text, bytes });
 * ```
 */
export async function extractCertificates(
  input: CertInput,
  opts: ExtractOptions = {},
): Promise<Uint8Array[]> {
  const { name, text, bytes } = input;
  if (looksLikePem(text)) return certificatesFromPem(text, name);
  if (bytes.length === 0 || text.trim() === "") throw new InputError(`${name}: empty input`);
  if (bytes[0] === 0x30) {
    try {
      certificateParts(bytes);
      return [bytes];
    } catch (e) {
      if (isBinary(bytes)) {
        throw new InputError(`${name}: invalid DER certificate: ${(e as Error).message}`);
      }
    }
  }
  if (isBinary(bytes)) {
    throw new InputError(
      `${name}: not a certificate (expected PEM, DER, a kubeconfig or a cluster-info ConfigMap)`,
    );
  }
  const { parseManifests } = await import("./manifest.ts");
  let objects: Record<string, unknown>[];
  try {
    objects = parseManifests(text, name) as Record<string, unknown>[];
  } catch {
    objects = [];
  }
  const out: Uint8Array[] = [];
  for (const obj of objects) {
    if (obj.kind === "Config" || (obj.kind === undefined && Array.isArray(obj.clusters))) {
      out.push(...fromKubeconfig(obj, name, opts));
    } else if (obj.kind === "ConfigMap") {
      const inner = asRecord(obj.data)?.kubeconfig;
      if (typeof inner !== "string") {
        throw new InputError(`${name}: ConfigMap has no data.kubeconfig`);
      }
      const where = `${name}: data.kubeconfig`;
      let parsed: Record<string, unknown>[];
      try {
        parsed = parseManifests(inner, where) as Record<string, unknown>[];
      } catch {
        throw new InputError(`${where}: not a kubeconfig`);
      }
      const kc = parsed[0];
      if (kc === undefined || !Array.isArray(kc.clusters)) {
        throw new InputError(`${where}: not a kubeconfig`);
      }
      out.push(...fromKubeconfig(kc, where, opts));
    }
  }
  if (out.length === 0) {
    throw new InputError(
      `${name}: no certificate found (expected PEM, DER, a kubeconfig or a cluster-info ConfigMap)`,
    );
  }
  return out;
}
