/**
 * Checks an issued certificate the way its users would: the chain and
 * signatures up to a trusted CA (Go `x509.Verify` semantics for validity and
 * EKUs, walking the chain from root to leaf), the built-in signer's subject,
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
import { type Cert, formatTimeLeft, isCa } from "./cert_info.ts";
import { formatName } from "./pkix.ts";
import { rotationWindow } from "./rotation.ts";
import { checkSignature } from "./sigalg.ts";
import { guessSigner, signerValidator } from "./signer.ts";
import { formatRfc3339 } from "./time.ts";
import { ekuName, EXT_KEY_USAGE_STRINGS, KU_NAMES } from "./usages.ts";

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

/** The usage strings a certificate's KU and EKUs correspond to. */
export function usagesOfCert(c: Cert): string[] {
  const out: string[] = [];
  KU_NAMES.forEach((_, i) => {
    if (c.keyUsage !== undefined && (c.keyUsage & (1 << i)) !== 0) out.push(KU_STRINGS[i]!);
  });
  const byName = new Map<string, string>();
  for (const [s, n] of Object.entries(EXT_KEY_USAGE_STRINGS)) if (!byName.has(n)) byName.set(n, s);
  for (const o of c.extKeyUsage ?? []) out.push(byName.get(ekuName(o)) ?? o);
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

/** Go's `checkChainForKeyUsage` for one wanted usage over a chain (leaf first). */
export function chainAllowsEku(chain: readonly Cert[], want: string): boolean {
  for (let i = chain.length - 1; i >= 0; i--) {
    const ekus = chain[i]!.extKeyUsage;
    if (ekus === undefined || ekus.length === 0) continue;
    const names = ekus.map(ekuName);
    if (names.includes("Any")) continue;
    const sgc = want === "ServerAuth" &&
      (names.includes("NetscapeServerGatedCrypto") || names.includes("MicrosoftServerGatedCrypto"));
    if (!names.includes(want) && !sgc) return false;
  }
  return true;
}

/**
 * Verifies `leaf` (with `intermediates` from the same file) against the CAs.
 */
export async function verifyCertificate(
  leaf: Cert,
  intermediates: readonly Cert[],
  source: string,
  o: VerifyOptions,
): Promise<VerifyReport> {
  const checks: Check[] = [];
  const at = o.at.getTime();

  // Chain: leaf → intermediates* → a trusted CA, each signature checked.
  const chain: Cert[] = [leaf];
  let chainOk = false;
  let chainDetail = "";
  let cur = leaf;
  const pool = [...intermediates];
  for (let depth = 0; depth < 8; depth++) {
    const candidates = o.cas.filter((c) => sameBytes(c.cert.subjectDer, cur.issuerDer));
    if (candidates.length) {
      // Several CAs may share a subject (CA rotation): any one that verifies will do.
      for (const ca of candidates) {
        const bad = await checkSignature(cur, ca.cert.key);
        if (bad) {
          chainDetail ||= `signature by ${
            formatName(ca.cert.subject)
          } (${ca.source}) does not verify: ${bad}`;
          continue;
        }
        if (!isCa(ca.cert)) {
          chainDetail = `${formatName(ca.cert.subject)} (${ca.source}) is not a CA`;
        } else if (ca.cert.notAfter.getTime() < at || ca.cert.notBefore.getTime() > at) {
          chainDetail = `CA ${formatName(ca.cert.subject)} (${ca.source}) is not valid at ${
            formatRfc3339(o.at)
          } (valid ${formatRfc3339(ca.cert.notBefore)} to ${formatRfc3339(ca.cert.notAfter)})`;
        } else {
          chain.push(ca.cert);
          chainOk = true;
          chainDetail = `signed by ${formatName(ca.cert.subject)} (${ca.source})` +
            (chain.length > 2 ? ` via ${chain.length - 2} intermediate(s)` : "");
        }
        break;
      }
      break;
    }
    const next = pool.findIndex((c) => sameBytes(c.subjectDer, cur.issuerDer));
    if (next < 0) {
      chainDetail = `x509: certificate signed by unknown authority (issuer ${
        formatName(cur.issuer)
      } is not in ${
        o.cas.map((c) => c.source).filter((v, i, a) => a.indexOf(v) === i).join(", ")
      })`;
      break;
    }
    const inter = pool.splice(next, 1)[0]!;
    const bad = await checkSignature(cur, inter.key);
    const expired = inter.notAfter.getTime() < at || inter.notBefore.getTime() > at;
    if (bad || !isCa(inter) || expired) {
      chainDetail = bad
        ? `signature by intermediate ${formatName(inter.subject)} does not verify: ${bad}`
        : !isCa(inter)
        ? `intermediate ${formatName(inter.subject)} is not a CA`
        : `intermediate ${formatName(inter.subject)} is not valid at ${
          formatRfc3339(o.at)
        } (valid ${formatRfc3339(inter.notBefore)} to ${formatRfc3339(inter.notAfter)})`;
      break;
    }
    chain.push(inter);
    cur = inter;
  }
  checks.push({ check: "chain", ok: chainOk, detail: chainDetail });

  const left = leaf.notAfter.getTime() - at;
  const validNow = leaf.notBefore.getTime() <= at && at <= leaf.notAfter.getTime();
  checks.push({
    check: "validity",
    ok: validNow,
    detail: `${formatRfc3339(leaf.notBefore)} to ${formatRfc3339(leaf.notAfter)}, at ${
      formatRfc3339(o.at)
    }: ${
      leaf.notBefore.getTime() > at
        ? "not yet valid"
        : left < 0
        ? "expired"
        : `${formatTimeLeft(left)} left`
    }`,
  });
  checks.push({
    check: "ca-flag",
    ok: !isCa(leaf),
    detail: isCa(leaf) ? "the certificate is a CA (CA:TRUE)" : "CA:FALSE",
  });

  const facts = { subject: leaf.subject, sans: leaf.sans, key: leaf.key };
  const signerName = o.signerName ?? guessSigner(facts);
  const usages = usagesOfCert(leaf);
  const want = requiredEku(signerName);
  if (want) {
    const ok = chainAllowsEku(chain, want);
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
      start: formatRfc3339(w.start),
      end: formatRfc3339(w.end),
      due: at >= w.start.getTime(),
    },
    ok: checks.every((c) => c.ok),
  };
}
