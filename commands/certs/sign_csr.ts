/**
 * `joinkit certs sign-csr`: the CSRs of `certs generate-csr` signed as
 * kubeadm signs those certificates (external-CA mode, step 2: on the CA's
 * machine).
 *
 * @module
 */

import * as path from "node:path";
import { InputError, UsageError } from "../../lib/base/errors.ts";
import type { CaName } from "../../lib/phases/certs.ts";
import type { SigningCa } from "../../lib/phases/external_ca.ts";
import { type Command, type Context, EXIT_CODES } from "../_command.ts";
import {
  expectArgs,
  flagBool,
  flagDuration,
  flagSet,
  flagString,
  requireOutDir,
} from "../_flags.ts";
import { ensureDir, readInput, writeFilesAtomic } from "../_io.ts";
import { nodeFs } from "../_read.ts";
import { readPkiConfig, readTree } from "./_pki_config.ts";

const FLAGS = flagSet("certs sign-csr", [
  [
    "ca",
    "the cluster CA certificate (ca.crt): signs the apiserver, apiserver-kubelet-client\nand kubeconfig CSRs",
  ],
  ["ca-key", "its private key"],
  ["front-proxy-ca", "the front-proxy CA certificate: signs front-proxy-client"],
  ["front-proxy-ca-key", "its private key"],
  ["etcd-ca", "the etcd CA certificate: signs etcd/* and apiserver-etcd-client"],
  ["etcd-ca-key", "its private key"],
  ["config", "the kubeadm configuration: its certificateValidityPeriod"],
  ["certificate-validity-period", "the certificates' lifetime (8760h)"],
  ["out-dir", "where to write the certificates (DIR's layout: pki/apiserver.crt, admin.conf.crt)"],
  ["force", "replace existing certificates in --out-dir"],
]);

export const command: Command = {
  name: "certs sign-csr",
  options: FLAGS.options,
  help: `Sign the CSRs of 'certs generate-csr' as kubeadm signs those certificates.

External-CA mode, step 2 of 3, on the machine that holds the CA keys (see
'joinkit certs generate-csr'). DIR is the generate-csr directory (or a copy of
its *.csr files in the same layout); for a several-node generate-csr, DIR
holds one directory per node and each is signed into --out-dir/<node>/. Each CSR is signed by the CA kubeadm signs
that certificate with -- front-proxy-client by the front-proxy CA, etcd/* and
apiserver-etcd-client by the etcd CA, the rest and the five kubeconfigs' CSRs
by the cluster CA -- with kubeadm's template: its extended key usages
(apiserver serverAuth; etcd/server and etcd/peer serverAuth+clientAuth; the
others clientAuth), key usage digitalSignature+keyEncipherment, CA:FALSE, the
CA's key id, the CSR's subject and SANs, NotBefore = --now - 5m, NotAfter =
--now + the validity period. kube-controller-manager's signers ('joinkit csr
sign') cannot sign these: none issues serving certificates for the API server
or etcd, and kube-apiserver-client refuses O=system:masters (super-admin.conf).

Before signing, each CSR must verify and ask for kubeadm's subject for its
file (admin.conf.csr: O=kubeadm:cluster-admins CN=kubernetes-admin; etcd
server/peer: a CN that is one of its DNS SANs; ...), no SANs on client
certificates and no extension but SANs: a mislabelled CSR is refused.

CSRs whose CA is not given are passed over with a warning line (CAs may live
on different machines); signing nothing is an error. The certificates are
written to --out-dir in DIR's layout (pki/apiserver.crt, pki/etcd/server.crt,
admin.conf.crt), 0644; carry them back and run 'joinkit certs assemble'.

Usage:
  joinkit certs sign-csr DIR --ca ca.crt --ca-key ca.key [--front-proxy-ca F
    --front-proxy-ca-key K] [--etcd-ca F --etcd-ca-key K] --out-dir SIGNED

${FLAGS.help}
The clock is the global --now (default: the system time).

${EXIT_CODES}
  (1: a CSR that does not verify or asks for another subject, a CA key that is
  not its certificate's, nothing to sign; 2: a CA without its key, a
  malformed flag value such as --certificate-validity-period, named before
  any file is read)

Examples:
  joinkit certs sign-csr cp-1 --ca ca.crt --ca-key ca.key --front-proxy-ca fp.crt \\
    --front-proxy-ca-key fp.key --etcd-ca etcd-ca.crt --etcd-ca-key etcd-ca.key --out-dir signed
`,
  async run(ctx) {
    expectArgs(ctx, 1, 1, "DIR");
    const dir = ctx.args[0]!;
    const outDir = requireOutDir(ctx.flags);
    const force = flagBool(ctx.flags, "force");
    // Flags first (cobra's order): a malformed value or a CA without its key is a usage
    // error before any file is read.
    const validityFlag = flagDuration(ctx.flags, "certificate-validity-period");
    const pairs = signingCaFlags(ctx);
    if (pairs.length === 0) throw new UsageError("give at least one CA: --ca and --ca-key");
    const cas = readSigningCas(pairs);
    const spec = await readPkiConfig(ctx, false);
    const validityMs = validityFlag ?? spec?.certificateValidityMs;
    const { csrPaths, csrTarget, signKubeadmCsrs } = await import(
      "../../lib/phases/external_ca.ts"
    );
    // DIR itself, or the node directories of a several-node generate-csr (DIR/<node>/...).
    const groups: [string, Map<string, Uint8Array>][] = [];
    const top = readTree(dir, csrPaths());
    if (top.size) groups.push(["", top]);
    else {
      const fs = nodeFs();
      const subs = fs.existsSync(dir) && fs.statSync(dir).isDirectory()
        ? fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory())
          .map((e) => e.name).sort()
        : [];
      for (const sub of subs) {
        const m = readTree(path.join(dir, sub), csrPaths());
        if (m.size) groups.push([`${sub}/`, m]);
      }
    }
    if (groups.length === 0) {
      throw new InputError(
        `${dir}: no CSR of certs generate-csr (pki/*.csr, *.conf.csr, or node directories holding them)`,
      );
    }
    const files: { path: string; data: string; mode: number }[] = [];
    for (const [prefix, all] of groups) {
      const csrs = new Map<string, Uint8Array>();
      for (const [p, b] of all) {
        const t = csrTarget(p)!;
        const caName = ("leaf" in t ? t.leaf.caName : "ca") as CaName;
        if (cas[caName]) csrs.set(p, b);
        else ctx.stderr(`warning: ${prefix}${p}: not signed: no --${caName} given`);
      }
      if (csrs.size === 0) continue;
      for (
        const f of signKubeadmCsrs({
          csrs,
          cas,
          now: ctx.now,
          ...(validityMs !== undefined ? { validityMs } : {}),
        })
      ) files.push({ ...f, path: `${prefix}${f.path}` });
    }
    if (files.length === 0) throw new InputError(`${dir}: no CSR is signed by the CAs given`);
    ensureDir(outDir, 0o755);
    for (const d of new Set(files.map((f) => path.dirname(path.join(outDir, f.path))))) {
      ensureDir(d, 0o755, outDir);
    }
    writeFilesAtomic(
      files.map((f) => ({
        path: path.join(outDir, f.path),
        data: f.data,
        mode: f.mode,
        root: outDir,
      })),
      force,
    );
    for (const f of files) ctx.stderr(`signed ${f.path}`);
    ctx.stderr(`wrote ${files.length} certificate(s) under ${outDir}`);
  },
};

/** The CA flag pairs given: each certificate with its key, checked before anything is read. */
function signingCaFlags(ctx: Context): [CaName, string, string][] {
  const out: [CaName, string, string][] = [];
  for (const name of ["ca", "front-proxy-ca", "etcd-ca"] as CaName[]) {
    const cert = flagString(ctx.flags, name);
    const key = flagString(ctx.flags, `${name}-key`);
    if (cert === undefined && key === undefined) continue;
    if (cert === undefined || key === undefined) {
      throw new UsageError(`--${name} and --${name}-key go together`);
    }
    out.push([name, cert, key]);
  }
  return out;
}

function readSigningCas(pairs: [CaName, string, string][]): Partial<Record<CaName, SigningCa>> {
  const out: Partial<Record<CaName, SigningCa>> = {};
  for (const [name, cert, key] of pairs) {
    const c = readInput(cert);
    const k = readInput(key);
    out[name] = { certPem: c.text, keyPem: k.text, certSource: c.name, keySource: k.name };
  }
  return out;
}
