/**
 * `joinkit certs generate-csr`: the keys and CSRs of `kubeadm certs
 * generate-csr` (external-CA mode, step 1: on the node's machine).
 *
 * @module
 */

import * as path from "node:path";
import { UsageError } from "../../lib/base/errors.ts";
import { type Command, EXIT_CODES } from "../_command.ts";
import { expectArgs, flagBool, flagSet, requireOutDir } from "../_flags.ts";
import { ensureDir, writeFilesAtomic } from "../_io.ts";
import { readPkiConfig, readTree, treePaths } from "./_pki_config.ts";

const FLAGS = flagSet("certs generate-csr", [
  ["config", "a kubeadm InitConfiguration + ClusterConfiguration (v1beta4 or v1beta3) (required)"],
  ["out-dir", "where to write pki/ and the kubeconfigs (created 0700 with parents)"],
  ["node-name", "override nodeRegistration.name"],
  ["force", "replace existing keys, CSRs and kubeconfigs (kubeadm refuses them)"],
]);

export const command: Command = {
  name: "certs generate-csr",
  options: FLAGS.options,
  help: `Write the keys and CSRs for an external CA, as kubeadm certs generate-csr does.

External-CA mode, step 1 of 3 (the CA keys never come to this machine):
  1. joinkit certs generate-csr --config kubeadm.yaml --out-dir DIR   (the node)
  2. joinkit certs sign-csr DIR --ca ca.crt --ca-key ca.key ... --out-dir SIGNED
     (the CA's machine; or any CA: openssl, Vault, ...)
  3. joinkit certs assemble --out-dir DIR SIGNED                       (the node)

DIR/pki/ gets a key (0600) and a CSR (0600) for every certificate of
kubeadm's list that a CA signs: apiserver, apiserver-kubelet-client,
front-proxy-client, etcd/server, etcd/peer, etcd/healthcheck-client,
apiserver-etcd-client (the etcd ones even with etcd.external, as kubeadm).
Each CSR asks for kubeadm's subject (O, CN) and SANs (kubeadm's computation
and order, in an extensionRequest) and nothing else: the CA decides the usages.
DIR/ gets the five kubeconfigs (admin.conf, super-admin.conf, kubelet.conf,
controller-manager.conf, scheduler.conf; 0600) with only their client key
embedded, and a CSR for each (admin.conf.csr, ...). Unlike kubeadm, it also
writes pki/sa.key and pki/sa.pub when absent: kubeadm makes no service-account
key in external-CA mode, and the API server needs one.

As kubeadm, an existing key, CSR or kubeconfig is refused ("file already
exists: key or CSR pki/apiserver"); --force replaces them. CA files are never
written; a CA key in DIR/pki is warned about (kubeadm would sign with it).

Progress lines go to stderr; nothing is printed on stdout.

Usage:
  joinkit certs generate-csr --config FILE --out-dir DIR [--node-name NAME] [--force]

${FLAGS.help}
${EXIT_CODES}
  (1: a configuration kubeadm refuses, an existing file; 2: no --config)

Examples:
  joinkit certs generate-csr --config kubeadm.yaml --out-dir /srv/cp-1
`,
  async run(ctx) {
    expectArgs(ctx, 0, 0, "");
    const outDir = requireOutDir(ctx.flags);
    const force = flagBool(ctx.flags, "force");
    const spec = await readPkiConfig(ctx, true);
    if (!spec) throw new UsageError("--config is required");
    const { generateKeysAndCsrs } = await import("../../lib/phases/external_ca.ts");
    const existing = readTree(outDir, treePaths());
    const made = await generateKeysAndCsrs({ spec, existing, force });
    for (const w of made.warnings) ctx.stderr(w);
    ensureDir(outDir, 0o700);
    for (const d of ["pki", "pki/etcd"]) ensureDir(path.join(outDir, d), 0o755, outDir);
    writeFilesAtomic(
      made.files.map((f) => ({
        path: path.join(outDir, f.path),
        data: f.data,
        mode: f.mode,
        root: outDir,
      })),
      force,
    );
    for (const l of made.lines) ctx.stderr(l);
    ctx.stderr(`wrote ${made.files.length} file(s) under ${outDir}`);
  },
};
