/**
 * Checks an issued certificate the way its users would: the chain up to a
 * trusted CA exactly as Go's `x509.Verify` judges it (lib/x509_verify.ts:
 * every candidate parent, validity of every certificate, path length, name
 * constraints, EKU nesting, SHA-1/MD5 refused), the built-in signer's subject,
 * SAN and usage rules, the node name, and the private key; and tells when the
 * kubelet would rotate it.
 *
 * @module
 */

import {
  APISERVER_CLIENT_SIGNER,
  KUBELET_CLIENT_SIGNER,
  KUBELET_SERVING_SIGNER,
} from "./approver.ts";
import { type Cert, isCa, notAfterMs, notBeforeMs, rfc3339 } from "../pki/cert_info.ts";
import { shortHumanDuration } from "../go/human_duration.ts";
import { formatName } from "../pki/pkix_name.ts";
import { rotationWindow } from "./rotation.ts";
import { guessSigner, signerValidator } from "./signer.ts";
import { ekuName, EXT_KEY_USAGE_STRINGS, KU_NAMES } from "../pki/usages.ts";
import { checkChainForKeyUsage, verify } from "../pki/x509_verify.ts";

/** One check's outcome. */
export interface Check {
  check: string;
  ok: boolean;
  detail: string;
}

/** The outcome of verifying one certificate. */
export interface VerifyReport {
  source: string;
  subject: string;
  checks: Check[];
  rotation: { start: string; end: string; due: boolean };
  ok: boolean;
}

/** What to check against. */
export interface VerifyOptions {
  /** Trusted CAs, with the name of the file each came from. */
  cas: { cert: Cert; source: string }[];
  signerName?: string | undefined;
  node?: string | undefined;
  /** SPKI of the private key that should match, and where it came from. */
  key?: { spki: Uint8Array; source: string } | undefined;
  at: Date;
}

const KU_STRINGS = [
  "digital signature",
  "content commitment",
  "key encipherment",
  "data encipherment",
  "key agreement",
  "cert sign",
  "crl sign",
  "encipher only",
  "decipher only",
];

/** Each EKU name's first usage string (made once: every certificate of a fleet looks it up). */
let usageOfEku: Map<string, string> | undefined;

/** The usage strings a certificate's KU and EKUs correspond to. */
export function usagesOfCert(c: Cert): string[] {
  const out: string[] = [];
  const ku = c.keyUsage;
  if (ku !== undefined) {
    for (let i = 0; i < KU_NAMES.length; i++) if ((ku & (1 << i)) !== 0) out.push(KU_STRINGS[i]!);
  }
  const eku = c.extKeyUsage;
  if (eku === undefined || eku.length === 0) return out;
  if (!usageOfEku) {
    usageOfEku = new Map();
    for (const [s, n] of Object.entries(EXT_KEY_USAGE_STRINGS)) {
      if (!usageOfEku.has(n)) usageOfEku.set(n, s);
    }
  }
  for (const o of eku) out.push(usageOfEku.get(ekuName(o)) ?? o);
  return out;
}

const sameBytes = (a: Uint8Array, b: Uint8Array) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** The EKU a signer's certificates are used for (Go's `VerifyOptions.KeyUsages`). */
export function requiredEku(signerName: string | undefined): string | undefined {
  if (signerName === KUBELET_SERVING_SIGNER) return "ServerAuth";
  if (signerName === KUBELET_CLIENT_SIGNER || signerName === APISERVER_CLIENT_SIGNER) {
    return "ClientAuth";
  }
  return undefined;
}

const INCOMPATIBLE_USAGE = "x509: certificate specifies an incompatible key usage";

/**
 * Verifies `leaf` (with `intermediates` from the same file) against the CAs:
 * the chain is Go's `x509.Verify` (lib/x509_verify.ts) with the signer's EKU
 * (any EKU when there is no signer), and its error is Go's text.
 */
export function verifyCertificate(
  leaf: Cert,
  intermediates: readonly Cert[],
  source: string,
  o: VerifyOptions,
): VerifyReport {
  const checks: Check[] = [];
  const at = o.at.getTime();
  const facts = { subject: leaf.subject, sans: leaf.sans, key: leaf.key };
  const signerName = o.signerName ?? guessSigner(facts);
  const want = requiredEku(signerName);

  const roots = o.cas.map((c) => c.cert);
  const verifyWith = (keyUsages: string[]) =>
    verify(leaf, { roots, intermediates, currentTime: o.at, keyUsages });
  const result = verifyWith(want ? [want] : ["Any"]);
  let chainDetail: string;
  if (result.ok) {
    const chain = result.chains[0]!;
    const root = chain[chain.length - 1]!;
    const from = o.cas.find((c) => c.cert === root)?.source;
    chainDetail = `signed by ${formatName(root.subject)}${from ? ` (${from})` : ""}` +
      (chain.length > 2 ? ` via ${chain.length - 2} intermediate(s)` : "") +
      (chain.length === 1 ? " (the certificate is itself a trusted CA)" : "");
  } else chainDetail = result.error;
  checks.push({ check: "chain", ok: result.ok, detail: chainDetail });

  // Texts of instants through cert_info's rfc3339 (formatRfc3339, kept per instant: a fleet's
  // certificates share their validity, the run its --now).
  const notBefore = notBeforeMs(leaf), notAfter = notAfterMs(leaf);
  const left = notAfter - at;
  const validNow = notBefore <= at && at <= notAfter;
  checks.push({
    check: "validity",
    ok: validNow,
    detail: `${rfc3339(notBefore)} to ${rfc3339(notAfter)}, at ${rfc3339(at)}: ${
      notBefore > at ? "not yet valid" : left < 0 ? "expired" : `${shortHumanDuration(left)} left`
    }`,
  });
  checks.push({
    check: "ca-flag",
    ok: !isCa(leaf),
    detail: isCa(leaf) ? "the certificate is a CA (CA:TRUE)" : "CA:FALSE",
  });

  const usages = usagesOfCert(leaf);
  if (want) {
    // The chain check already applied the EKU; say so separately, over the
    // chains Go would build with any EKU when that was what failed.
    let ok = result.ok;
    if (!result.ok) {
      const any = result.error === INCOMPATIBLE_USAGE ? verifyWith(["Any"]) : undefined;
      const chains = any?.ok ? any.chains : [[leaf]];
      ok = chains.some((ch) => checkChainForKeyUsage(ch, [want]));
    }
    checks.push({
      check: "eku",
      ok,
      detail: `${want} required for ${signerName}; certificate has ${
        (leaf.extKeyUsage ?? []).map(ekuName).join(", ") || "no EKU extension"
      }${ok ? "" : " (or a CA in the chain restricts it)"}`,
    });
  }
  if (signerName) {
    let refusal: string | undefined;
    try {
      refusal = signerValidator(signerName)(facts, usages);
    } catch (e) {
      refusal = (e as Error).message;
    }
    checks.push({
      check: "signer",
      ok: refusal === undefined,
      detail: refusal === undefined
        ? `meets ${signerName} rules${o.signerName ? "" : " (signer guessed from content)"}`
        : `${signerName}: ${refusal}`,
    });
  } else {
    checks.push({
      check: "signer",
      ok: true,
      detail: "not a kubelet client or serving certificate; no signer rules checked",
    });
  }
  if (o.node !== undefined) {
    const wantCn = `system:node:${o.node}`;
    checks.push({
      check: "node",
      ok: leaf.subject.commonName === wantCn,
      detail: leaf.subject.commonName === wantCn
        ? `CN is ${wantCn}`
        : `CN is ${JSON.stringify(leaf.subject.commonName)}, want ${wantCn}`,
    });
  }
  if (o.key) {
    const ok = sameBytes(o.key.spki, leaf.key.spki);
    checks.push({
      check: "key",
      ok,
      detail: ok
        ? `private key (${o.key.source}) matches`
        : `private key (${o.key.source}) does not match the certificate's public key`,
    });
  }
  const w = rotationWindow(leaf.notBefore, leaf.notAfter);
  return {
    source,
    subject: formatName(leaf.subject),
    checks,
    rotation: {
      start: rfc3339(w.start.getTime()),
      end: rfc3339(w.end.getTime()),
      due: at >= w.start.getTime(),
    },
    ok: checks.every((c) => c.ok),
  };
}
