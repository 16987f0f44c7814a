/**
 * `joinkit certs check-expiration`: `kubeadm certs check-expiration` offline,
 * over a kubeadm `/etc/kubernetes` tree (or its `pki/`), the kubelet's
 * `pki/` and loose files, with step's `needs-renewal` gate.
 *
 * @module
 */

import * as fs from "node:fs";
import * as path from "node:path";
import { InputError, UsageError } from "../../lib/base/errors.ts";
import type { Cert } from "../../lib/pki/cert_info.ts";
import { extractCerts } from "../../lib/pki/certsource.ts";
import { parseKubeconfig } from "../../lib/k8s/kubeconfig_read.ts";
import { goJsonIndent } from "../../lib/go/json.ts";
import { shortHumanDuration } from "../../lib/go/human_duration.ts";
import { formatRfc3339 } from "../../lib/go/time.ts";
import { formatName } from "../../lib/pki/pkix_name.ts";
import {
  expirationInfo,
  expirationText,
  type ExpiryEntry,
  KUBEADM_CAS,
  KUBEADM_CERTS,
  KUBEADM_KUBECONFIGS,
  needsRenewal,
  notACaError,
  parseRenewalThreshold,
  type RenewalThreshold,
} from "../../lib/kubelet/expiration.ts";
import { type Command, type Context, EXIT_CODES } from "../_command.ts";
import { expectArgs, flagSet, flagString, outputFormat } from "../_flags.ts";
import { walkFiles } from "../_io.ts";
import { type Input, readInput } from "../_read.ts";

const FLAGS = flagSet("certs check-expiration", [
  ["output", "text (default), json or yaml"],
  "expiring-within",
  [
    "config",
    "the kubeadm configuration of the tree: also check each kubeadm tree\nas a whole against it (see below)",
  ],
]);

export const command: Command = {
  name: "certs check-expiration",
  options: FLAGS.options,
  help: `Check certificate expiry as 'kubeadm certs check-expiration' does, offline.

Each DIR is searched: an /etc/kubernetes tree (DIR/pki/ca.crt present) or a
kubeadm cert dir (DIR/ca.crt present) gives kubeadm's rows -- ca, front-proxy-ca
and (with local etcd, DIR/pki/etcd/ca.crt) etcd-ca; apiserver,
apiserver-kubelet-client, front-proxy-client, the etcd certificates; the client
certificates embedded in admin.conf, super-admin.conf, controller-manager.conf
and scheduler.conf -- with '!MISSING! <name>' for absent ones, as kubeadm
prints them. Every other file holding a certificate is added under its path:
the kubelet's pki/ (kubelet-client-current.pem, kubelet-server-current.pem,
kubelet.crt; the dated files behind a -current.pem link are skipped), any
kubeconfig with an embedded client certificate (kubelet.conf included), loose
PEM or DER files. A CA certificate goes in the CA table. Keys and files
without a certificate are passed over. A FILE argument is always added.
As kubeadm, the whole report is refused (exit 1) when a CA file of the tree
(ca.crt, front-proxy-ca.crt, etcd/ca.crt) holds a certificate that is not a
CA: "Error checking external CA condition for ca certificate authority:
certificate CA is not a CA". A file that cannot be read is named on stderr
and the run exits 1 after the report (it is incomplete); so does a run that
found no certificate at all: check-expiration never passes a run that
checked nothing.

The text table is kubeadm's (columns, 'Jan 02, 2006 15:04 UTC', residual time
as ShortHumanDuration, externally managed = CA key absent). When the kubelet's
rotated certificates are present, a third table gives the window in which the
kubelet's certificate manager rotates each (70-90 % of its lifetime).
-o json|yaml prints kubeadm's CertificateExpirationInfo
(output.kubeadm.k8s.io/v1alpha3; residualTime in seconds), with an extra
rotationWindow {start, end} on the kubelet's rotated certificates.

Usage:
  joinkit certs check-expiration DIR|FILE... [-o text|json|yaml] [--expiring-within D|P%]

${FLAGS.help}
--expiring-within works as 'step certificate needs-renewal --expires-in': a Go
duration (720h; 0s = already expired) catches a certificate whose remaining
time is at most that; a whole percentage N% one at least N % through its
lifetime. The report is printed either way; each certificate inside the
threshold gets one 'error:' line on stderr and the exit code is 3. Missing
files do not count.

With --config (kubeadm's flag) each kubeadm tree among the DIRs is also
checked as a whole, as 'joinkit doctor --config' checks it: every certificate
chains to its own CA and matches its key, has kubeadm's subject, usages and
the SANs the configuration gives; the kubeconfigs embed ca.crt and a client
certificate with kubeadm's subject and the configuration's server. Each
problem is one 'error: FILE: RULE: MESSAGE' line on stderr after the report,
and the exit code is 3.

Times are judged at the global --now (default: the system time).

${EXIT_CODES}

Examples:
  joinkit certs check-expiration /etc/kubernetes /var/lib/kubelet/pki
  joinkit certs check-expiration /etc/kubernetes --expiring-within 720h || renew
  joinkit certs check-expiration /var/lib/kubelet/pki --expiring-within 80% -o json
`,
  async run(ctx) {
    expectArgs(ctx, 1, Infinity, "DIR|FILE");
    const format = outputFormat(ctx.flags, ["text", "json", "yaml"] as const, "text");
    const within = flagString(ctx.flags, "expiring-within");
    let threshold: RenewalThreshold | undefined;
    if (within !== undefined) {
      try {
        threshold = parseRenewalThreshold(within);
      } catch (e) {
        throw new UsageError(
          `invalid argument ${JSON.stringify(within)} for "--expiring-within" flag: ${
            (e as Error).message
          }`,
        );
      }
    }
    const certs: ExpiryEntry[] = [];
    const cas: ExpiryEntry[] = [];
    const skipped: string[] = [];
    for (const arg of ctx.args) {
      if (arg !== "-" && isDirectory(arg)) await scanDir(arg, certs, cas, skipped);
      else {
        const e = await looseEntry(readInput(arg), arg, true);
        if (e) (e.ca ? cas : certs).push(e.entry);
      }
    }
    resolveCaNames(certs, cas);
    const drift = await treeDrift(ctx);
    const info = expirationInfo(certs, cas, ctx.now);
    if (format === "json") ctx.stdout(goJsonIndent(info));
    else if (format === "yaml") {
      const { toYaml } = await import("../../lib/k8s/manifest.ts");
      ctx.stdout(toYaml(info));
    } else ctx.stdout(expirationText(info));
    for (const w of skipped) ctx.stderr(`warning: ${w}: skipped: unreadable`);
    for (const d of drift) ctx.stderr(`error: ${d}`);
    if (drift.length && threshold === undefined) return 3;
    const found = [...certs, ...cas].filter((e) => e.cert).length;
    // A report that missed a file or found nothing is never a success (1), unless it said no (3).
    const incompleteOrEmpty = (): number => {
      if (skipped.length) {
        ctx.stderr(`error: ${skipped.length} file(s) could not be read: the report is incomplete`);
        return 1;
      }
      if (found === 0) {
        ctx.stderr("error: no certificate found in the input");
        return 1;
      }
      return 0;
    };
    if (threshold === undefined) return incompleteOrEmpty();
    let expiring = 0;
    for (const e of [...certs, ...cas].sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (!e.cert || !needsRenewal(e.cert, threshold, ctx.now)) continue;
      expiring++;
      const left = e.cert.notAfter.getTime() - ctx.now.getTime();
      ctx.stderr(
        `error: ${e.name}: expires ${formatRfc3339(e.cert.notAfter)} (${
          left <= 0 ? "expired" : `${shortHumanDuration(left)} left`
        }), within --expiring-within ${threshold.text}`,
      );
    }
    if (expiring || drift.length) return 3;
    return incompleteOrEmpty();
  },
};

/** With --config: each kubeadm tree among the DIR arguments checked as a whole (`FILE: RULE: MESSAGE`). */
async function treeDrift(ctx: Context): Promise<string[]> {
  const { readPkiConfig, readTree, treePaths } = await import("./_pki_config.ts");
  const spec = await readPkiConfig(ctx, false);
  if (!spec) return [];
  const { checkPkiTree } = await import("../../lib/phases/pki_check.ts");
  const out: string[] = [];
  for (const arg of ctx.args) {
    if (arg === "-" || !isDirectory(arg)) continue;
    const tree = exists(path.join(arg, "pki", "ca.crt"));
    if (!tree && !exists(path.join(arg, "ca.crt"))) continue;
    const paths = tree
      ? treePaths()
      : treePaths().filter((p) => p.startsWith("pki/")).map((p) => p.slice(4));
    const files = readTree(arg, paths);
    for (const f of checkPkiTree(files, { now: ctx.now, spec, pkiPrefix: tree ? "pki/" : "" })) {
      out.push(`${path.join(arg, f.file)}: ${f.rule}: ${f.message}`);
    }
  }
  return out;
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function exists(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The first certificate of a file, or the embedded client certificate of a kubeconfig. */
async function certOf(input: Input): Promise<Cert | undefined> {
  if (/^\s*(apiVersion|kind|clusters|users|current-context)\s*:/m.test(input.text)) {
    let users;
    try {
      users = parseKubeconfig(input.text, input.name).users;
    } catch {
      return undefined;
    }
    const u = users.find((u) => u.clientCertData.length > 0);
    if (!u) return undefined;
    try {
      const certs = await extractCerts({
        name: input.name,
        text: new TextDecoder().decode(u.clientCertData),
        bytes: u.clientCertData,
      });
      return certs[0];
    } catch {
      return undefined;
    }
  }
  try {
    return (await extractCerts(input))[0];
  } catch {
    return undefined;
  }
}

const KUBELET_ROTATED = /^kubelet-(client|server)-current\.pem$/;
const KUBELET_DATED = /^kubelet-(client|server)-\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}\.pem$/;

async function looseEntry(
  input: Input,
  name: string,
  mustHaveCert: boolean,
): Promise<{ entry: ExpiryEntry; ca: boolean } | undefined> {
  const cert = await certOf(input);
  if (!cert) {
    if (mustHaveCert) throw new InputError(`${input.name}: no certificate found`);
    return undefined;
  }
  const base = path.basename(input.name);
  const kubeletRotated = KUBELET_ROTATED.test(base) || KUBELET_DATED.test(base);
  const entry: ExpiryEntry = {
    name,
    cert,
    caName: "",
    externallyManaged: false,
    ...(kubeletRotated ? { kubeletRotated } : {}),
  };
  return { entry, ca: cert.basicConstraints?.isCA === true };
}

/** One directory: kubeadm's rows when it is a kubeadm tree, then every other certificate. */
async function scanDir(
  dir: string,
  certs: ExpiryEntry[],
  cas: ExpiryEntry[],
  skipped: string[],
): Promise<void> {
  const used = new Set<string>();
  const certDir = exists(path.join(dir, "pki", "ca.crt"))
    ? path.join(dir, "pki")
    : exists(path.join(dir, "ca.crt"))
    ? dir
    : undefined;
  const kubeconfigDir = certDir && certDir !== dir ? dir : undefined;
  if (certDir) {
    const localEtcd = exists(path.join(certDir, "etcd", "ca.crt"));
    const hasKey = (base: string) => exists(path.join(certDir, base + ".key"));
    const external = (caName: string) => {
      const ca = KUBEADM_CAS.find((c) => c.name === caName)!;
      return exists(path.join(certDir, ca.base + ".crt")) && !hasKey(ca.base);
    };
    const load = async (file: string): Promise<Cert | undefined> => {
      used.add(path.resolve(file));
      if (!exists(file)) return undefined;
      for (const ext of [".key", ".pub"]) used.add(path.resolve(file.replace(/\.\w+$/, ext)));
      const input = readInput(file);
      const c = await certOf(input);
      if (!c) throw new InputError(`${input.name}: no certificate found`);
      return c;
    };
    for (const ca of KUBEADM_CAS) {
      if (ca.etcd && !localEtcd) continue;
      const file = path.join(certDir, ca.base + ".crt");
      const cert = await load(file);
      // kubeadm refuses the whole report when a CA file holds a leaf (validateCACert).
      if (cert && cert.basicConstraints?.isCA !== true) {
        throw new InputError(`${file}: ${notACaError(ca.base)}`);
      }
      cas.push({
        name: ca.name,
        ...(cert ? { cert } : {}),
        caName: "",
        externallyManaged: cert !== undefined && !hasKey(ca.base),
      });
    }
    for (const spec of KUBEADM_CERTS) {
      if (spec.etcd && !localEtcd) continue;
      const cert = await load(path.join(certDir, spec.base + ".crt"));
      certs.push({
        name: spec.name,
        ...(cert ? { cert } : {}),
        caName: spec.ca,
        externallyManaged: external(spec.ca),
      });
    }
    for (const f of ["sa.key", "sa.pub"]) used.add(path.resolve(path.join(certDir, f)));
    if (kubeconfigDir) {
      for (const name of KUBEADM_KUBECONFIGS) {
        const cert = await load(path.join(kubeconfigDir, name));
        certs.push({
          name,
          ...(cert ? { cert } : {}),
          caName: "ca",
          externallyManaged: external("ca"),
        });
      }
    }
  }
  const files = walkFiles(dir, (file) => skipped.push(file));
  const bases = new Set(files.map((f) => path.join(path.dirname(f), path.basename(f))));
  for (const file of files) {
    if (used.has(path.resolve(file))) continue;
    const base = path.basename(file);
    const m = KUBELET_DATED.exec(base);
    // The dated files behind kubelet-*-current.pem: history, the link is what counts.
    if (m && bases.has(path.join(path.dirname(file), `kubelet-${m[1]}-current.pem`))) continue;
    let input: Input;
    try {
      input = readInput(file);
    } catch {
      skipped.push(file);
      continue;
    }
    const e = await looseEntry(input, path.relative(dir, file) || base, false);
    if (e) (e.ca ? cas : certs).push(e.entry);
  }
}

/** Names the issuing CA of every certificate kubeadm does not name, by issuer and subject. */
function resolveCaNames(certs: ExpiryEntry[], cas: readonly ExpiryEntry[]): void {
  const bySubject = new Map<string, ExpiryEntry>();
  for (const ca of cas) {
    if (ca.cert) {
      const key = formatName(ca.cert.subject);
      if (!bySubject.has(key)) bySubject.set(key, ca);
    }
  }
  for (const e of certs) {
    if (e.caName !== "" || !e.cert) continue;
    const ca = bySubject.get(formatName(e.cert.issuer));
    e.caName = ca?.name ?? "";
    // Signed by a CA whose key is absent (kubelet.conf in an external-CA tree): externally managed too.
    if (ca?.externallyManaged) e.externallyManaged = true;
  }
}
