/**
 * `joinkit csr sign`: kube-controller-manager's CSR signers, offline.
 *
 * @module
 */

import { checkCsrSignature, type Csr, parseCsrDer } from "../lib/csr.ts";
import {
  approvedCondition,
  type CsrObject,
  failedCondition,
  hasCondition,
  readCsrObject,
  withStatus,
} from "../lib/csr_object.ts";
import { parseDuration } from "../lib/duration.ts";
import { CheckError, InputError, JoinkitError, oneLine, UsageError } from "../lib/errors.ts";
import { decodePem, encodePem } from "../lib/pem.ts";
import {
  DEFAULT_SIGNING_DURATION_MS,
  defaultUsages,
  guessSigner,
  loadSigningCa,
  signCsr,
  signerValidator,
  type SigningCa,
} from "../lib/signer.ts";
import { type Command, type Context, EXIT_CODES } from "./_command.ts";
import { expectArgs, flagBool, flagChoice, flagList, flagString, requireString } from "./_flags.ts";
import { readInput, writeFilesAtomic } from "./_io.ts";

export const command: Command = {
  name: "csr sign",
  options: {
    ca: { type: "string" },
    "ca-key": { type: "string" },
    "signer-name": { type: "string" },
    usages: { type: "string", multiple: true },
    duration: { type: "string" },
    approve: { type: "boolean" },
    output: { type: "string", short: "o" },
    out: { type: "string" },
    force: { type: "boolean" },
  },
  help: `Sign CSRs offline exactly as kube-controller-manager's csrsigning controllers do.

FILE holds PEM CSRs, or CertificateSigningRequest objects (YAML stream, JSON,
or a List as 'kubectl get csr -o yaml' prints). Each CSR is judged and signed
on its own:
  - the CSR's self-signature must verify;
  - the signer's validator must accept it (kubelet-client, kubelet-serving,
    kube-apiserver-client rules; legacy-unknown accepts anything); a refusal is
    reported with upstream's reason and exit code 3;
  - lifetime = min(--duration, spec.expirationSeconds), never below 10 minutes;
    NotBefore = now-5m; NotAfter = now+lifetime (lifetime < 8h) or
    now+lifetime-5m; cut at the CA's NotAfter; an expired CA refuses;
  - random 128-bit serial; key usage and EKUs from the usage strings; subject
    and SANs copied; every other requested extension dropped; CA:FALSE.
A PEM CSR gives a certificate PEM (several CSRs: one certificate per CSR that
passes, a stderr line per refusal). An object comes back with
status.certificate set (and, with --approve, the Approved condition
'kubectl certificate approve' adds); the output keeps the input's shape.
A refused object gets the signer's Failed/SignerValidationFailure condition
(when other objects were signed) and one stderr line. Denied, Failed or
already-issued objects are refused; unapproved ones are signed with a warning.

Usage:
  joinkit csr sign FILE --ca CA.crt --ca-key CA.key [--signer-name NAME] [--usages U,...]
                   [--duration 8760h] [--approve] [-o pem|yaml|json] [--out FILE] [--force]

Flags:
  --ca FILE            the signing CA certificate (PEM)
  --ca-key FILE        its private key (PEM: PKCS#1, SEC 1 or PKCS#8; not encrypted)
  --signer-name NAME   PEM CSRs: the signer (default: guessed from the content as
                       kubelet client or serving); objects: only sign this signer's CSRs
  --usages U,...       PEM CSRs: usage strings (default: the kubelet's for the key type)
  --duration D         --cluster-signing-duration (default 8760h)
  --approve            add the Approved condition to objects that lack it
  -o, --output FORMAT  pem (default for PEM input), yaml or json (default for objects:
                       the input's format)
  --out FILE           write the output to FILE instead of stdout
  --force              overwrite --out

The clock is the global --now (default: the system time).

${EXIT_CODES}

Examples:
  joinkit csr sign pki/kubelet-client.csr --ca ca.crt --ca-key ca.key > kubelet-client.crt
  kubectl get csr -o yaml | joinkit csr sign - --ca ca.crt --ca-key ca.key --approve
`,
  async run(ctx) {
    expectArgs(ctx, 1, 1, "FILE");
    const caPath = requireString(ctx.flags, "ca");
    const keyPath = requireString(ctx.flags, "ca-key");
    const signerFlag = flagString(ctx.flags, "signer-name");
    const usagesFlag = flagList(ctx.flags, "usages", true).map((u) => u.trim()).filter(Boolean);
    const durText = flagString(ctx.flags, "duration") ?? "8760h";
    const ttl = durText === "8760h" ? DEFAULT_SIGNING_DURATION_MS : parseDuration(durText);
    if (!(ttl > 0)) throw new UsageError(`--duration must be positive, got ${durText}`);
    const approve = flagBool(ctx.flags, "approve");
    const outFile = flagString(ctx.flags, "out");
    const force = flagBool(ctx.flags, "force");
    if (signerFlag !== undefined) signerValidator(signerFlag);

    const input = readInput(ctx.args[0]!);
    const caIn = readInput(caPath);
    const keyIn = readInput(keyPath);
    const ca = await loadSigningCa(caIn.text, caIn.name, keyIn.text, keyIn.name);
    const isPem = input.text.includes("-----BEGIN");
    const emit = (text: string) => {
      if (outFile) writeFilesAtomic([{ path: outFile, data: text, mode: 0o644 }], force);
      else ctx.stdout(text);
    };

    if (isPem) {
      const format = flagChoice(ctx.flags, "output", ["pem"] as const, "pem");
      const { pem, code } = await signPem(ctx, input.text, input.name, ca, {
        signerFlag,
        usagesFlag,
        ttl,
      });
      if (format === "pem" && pem) emit(pem);
      return code;
    }
    if (usagesFlag.length) {
      throw new UsageError("--usages applies to PEM CSRs; objects carry spec.usages");
    }
    const trimmed = input.text.trimStart();
    const inputJson = trimmed.startsWith("{") || trimmed.startsWith("[");
    const format = flagChoice(
      ctx.flags,
      "output",
      ["yaml", "json", "pem"] as const,
      inputJson ? "json" : "yaml",
    );
    const { parseManifests, renderObjects, toJson, toYaml } = await import("../lib/manifest.ts");
    const objects = parseManifests(input.text, input.name);
    if (objects.length === 0) throw new InputError(`${input.name}: no objects found`);
    const isList = inputJson
      ? /^\s*\{[\s\S]*"kind"\s*:\s*"[A-Za-z]*List"/.test(input.text) && /"items"/.test(input.text)
      : /^kind:\s*['"]?[A-Za-z]*List['"]?\s*$/m.test(input.text) && /^items:/m.test(input.text);
    const out: Record<string, unknown>[] = [];
    const pems: string[] = [];
    let refused = 0, signed = 0, unapproved = 0;
    let firstRefusal: CheckError | InputError | undefined;
    for (let i = 0; i < objects.length; i++) {
      const obj = objects[i]!;
      const where = objects.length > 1 ? `${input.name}: object ${i + 1}` : input.name;
      let c: CsrObject | undefined;
      try {
        c = readCsrObject(obj, where);
        const label = `${where} (${c.name})`;
        if (signerFlag !== undefined && c.signerName !== signerFlag) {
          throw new CheckError(
            `${label}: signerName ${JSON.stringify(c.signerName)} is not ${
              JSON.stringify(signerFlag)
            }`,
          );
        }
        if (hasCondition(c, "Denied")) throw new CheckError(`${label}: csr is denied`);
        if (hasCondition(c, "Failed")) throw new CheckError(`${label}: csr has failed`);
        if (c.certificate) throw new CheckError(`${label}: csr already has a certificate`);
        const approved = hasCondition(c, "Approved");
        if (!approved && !approve) unapproved++;
        let csr: Csr;
        try {
          csr = csrFromRequest(c.request);
        } catch (e) {
          throw new InputError(`${label}: unable to parse csr: ${oneLine(e)}`);
        }
        let validator;
        try {
          validator = signerValidator(c.signerName);
        } catch (e) {
          throw new CheckError(`${label}: ${oneLine(e)}`);
        }
        const bad = await checkCsrSignature(csr);
        if (bad) {
          throw new CheckError(`${label}: unable to verify certificate request signature: ${bad}`);
        }
        const refusal = validator(csr, c.usages);
        if (refusal) {
          refused++;
          const err = new CheckError(`${label}: ${refusal}`);
          firstRefusal ??= err;
          ctx.stderr(`error: ${err.message}`);
          out.push(withStatus(obj, [failedCondition(ctx.now, refusal)]));
          continue;
        }
        let certDer: Uint8Array;
        try {
          certDer = await signCsr(ca, {
            csr,
            usages: c.usages,
            expirationSeconds: c.expirationSeconds,
            certTtlMs: ttl,
            now: ctx.now,
            signatureChecked: true,
          });
        } catch (e) {
          if (e instanceof CheckError || e instanceof InputError) {
            throw new (e.constructor as typeof CheckError)(`${label}: ${e.message}`);
          }
          throw e;
        }
        const certPem = encodePem("CERTIFICATE", certDer);
        pems.push(certPem);
        signed++;
        out.push(
          withStatus(obj, approve && !approved ? [approvedCondition(ctx.now)] : [], certPem),
        );
      } catch (e) {
        if (!(e instanceof CheckError || e instanceof InputError)) throw e;
        refused++;
        firstRefusal ??= e;
        ctx.stderr(`error: ${e.message}`);
        out.push(obj);
      }
    }
    if (signed === 0) {
      // Nothing signed: no output at all; the (first) reason is the error.
      if (objects.length === 1 && firstRefusal) {
        // already printed; exit with its code without repeating the line
        return firstRefusal.exitCode;
      }
      return firstRefusal?.exitCode ?? 3;
    }
    if (unapproved > 0) {
      ctx.stderr(
        `warning: signed ${unapproved} CSR(s) that are not approved; kube-controller-manager ` +
          `signs only approved CSRs (use --approve to add the Approved condition)`,
      );
    }
    let text: string;
    if (format === "pem") text = pems.join("");
    else if (isList) {
      const list = {
        apiVersion: "v1",
        items: out,
        kind: "List",
        metadata: { resourceVersion: "" },
      };
      text = format === "json" ? toJson(list) : toYaml(list);
    } else text = renderObjects(out, format);
    emit(text);
    return refused > 0 ? (firstRefusal?.exitCode ?? 3) : 0;
  },
};

function csrFromRequest(request: Uint8Array): Csr {
  const text = new TextDecoder().decode(request);
  const blocks = decodePem(text, "spec.request");
  const b = blocks[0];
  if (!b || b.type !== "CERTIFICATE REQUEST") {
    throw new InputError("PEM block type must be CERTIFICATE REQUEST");
  }
  return parseCsrDer(b.der);
}

/**
 * Signs every PEM CSR in `text`, each on its own. A single CSR's refusal is
 * thrown; with several, each refusal is one stderr line and the others are
 * still signed. Returns the certificates and the exit code.
 */
async function signPem(
  ctx: Context,
  text: string,
  name: string,
  ca: SigningCa,
  o: { signerFlag: string | undefined; usagesFlag: string[]; ttl: number },
): Promise<{ pem: string; code: number }> {
  const blocks = decodePem(text, name).filter((b) => b.type === "CERTIFICATE REQUEST");
  if (blocks.length === 0) {
    throw new InputError(`${name}: PEM block type must be CERTIFICATE REQUEST`);
  }
  const out: string[] = [];
  let code = 0;
  for (let i = 0; i < blocks.length; i++) {
    const where = blocks.length > 1 ? `${name}[${i}]` : name;
    try {
      out.push(await signOnePem(ctx, blocks[i]!.der, where, ca, o));
    } catch (e) {
      if (blocks.length === 1 || !(e instanceof JoinkitError)) throw e;
      ctx.stderr(`error: ${e.message}`);
      code ||= e.exitCode;
    }
  }
  if (out.length === 0) return { pem: "", code };
  return { pem: out.join(""), code };
}

async function signOnePem(
  ctx: Context,
  der: Uint8Array,
  where: string,
  ca: SigningCa,
  o: { signerFlag: string | undefined; usagesFlag: string[]; ttl: number },
): Promise<string> {
  let csr: Csr;
  try {
    csr = parseCsrDer(der);
  } catch (e) {
    throw new InputError(`${where}: ${oneLine(e)}`);
  }
  const signerName = o.signerFlag ?? guessSigner(csr);
  if (signerName === undefined) {
    throw new UsageError(
      `${where}: not a kubelet client or serving CSR; name the signer with --signer-name`,
    );
  }
  const usages = o.usagesFlag.length ? o.usagesFlag : defaultUsages(signerName, csr.key.type);
  if (usages === undefined) {
    throw new UsageError(`${where}: --usages is required for signer ${signerName}`);
  }
  const bad = await checkCsrSignature(csr);
  if (bad) {
    throw new CheckError(`${where}: unable to verify certificate request signature: ${bad}`);
  }
  const refusal = signerValidator(signerName)(csr, usages);
  if (refusal) throw new CheckError(`${where}: ${refusal}`);
  try {
    const cert = await signCsr(ca, {
      csr,
      usages,
      certTtlMs: o.ttl,
      now: ctx.now,
      signatureChecked: true,
    });
    return encodePem("CERTIFICATE", cert);
  } catch (e) {
    if (e instanceof CheckError) throw new CheckError(`${where}: ${e.message}`);
    throw e;
  }
}
