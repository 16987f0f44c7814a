/**
 * `joinkit certs renew`: `kubeadm certs renew` offline, over a tree on disk.
 *
 * @module
 */

import * as path from "node:path";
import { InputError, UsageError } from "../../lib/base/errors.ts";
import { type Command, EXIT_CODES } from "../_command.ts";
import { expectArgs, flagSet, requireOutDir } from "../_flags.ts";
import { writeFilesAtomic } from "../_io.ts";
import { nodeFs } from "../_read.ts";
import { readPkiConfig, readTree, treePaths } from "./_pki_config.ts";

const FLAGS = flagSet("certs renew", [
  ["out-dir", "the tree: DIR/pki/ and the kubeconfigs beside it"],
  [
    "config",
    "the kubeadm configuration: encryptionAlgorithm, certificateValidityPeriod,\netcd.external (kubeadm's defaults without it)",
  ],
]);

export const command: Command = {
  name: "certs renew",
  options: FLAGS.options,
  help: `Renew certificates offline, as 'kubeadm certs renew' does.

NAME is all, or one or more of kubeadm's names: admin.conf, apiserver,
apiserver-etcd-client, apiserver-kubelet-client, controller-manager.conf,
etcd-healthcheck-client, etcd-peer, etcd-server, front-proxy-client,
scheduler.conf, super-admin.conf (no etcd names with etcd.external). The CAs,
sa.key/sa.pub and kubelet.conf are not renewed (the kubelet rotates its own
client certificate), as in kubeadm.

As kubeadm (renewal/manager.go RenewUsingLocalCA), each certificate is made
again from the one on disk: its CN, O, DNS and IP SANs and extended key usages
are kept (nothing is recomputed from the configuration); it gets a NEW private
key of the configuration's encryptionAlgorithm (kubeadm does not reuse the old
key, so renewing can switch RSA and ECDSA), a new serial, NotBefore = --now - 5m
and NotAfter = --now + certificateValidityPeriod (8760h), and is signed by the
CA in DIR/pki. pki/<name>.crt and .key are replaced; a kubeconfig keeps
everything but its client certificate and key and its CA, which becomes the
current pki/ca.crt. Unlike kubeadm, the kubeconfigs are read from DIR, not
from /etc/kubernetes.

stderr gets kubeadm's lines: "<long name> renewed", "MISSING! <long name>" for
an absent file (not an error while something else is renewed), and for all the
closing "Done renewing certificates. ...". Unlike kubeadm, a run that renews
nothing (every certificate named is missing, or DIR is not there) is an error
(exit 1) after the MISSING! lines, so that a pipeline does not take it for a
renewal. Every certificate is checked before anything is written:
a CA whose key is absent (external CA) refuses the run with kubeadm's
"Detected external ca, <long name> can't be renewed"; so does a CA key that
is not its certificate's, a CA file that is not a CA ("Error checking
external CA condition for ca certificate authority: ..."), a kubeconfig
without embedded CA or client certificate (kubeadm's texts). Renewing replaces
keys: that is what it is asked to do, so no --force is needed; files are
replaced atomically.

Several control-plane nodes: when DIR holds no tree but node directories
(DIR/<node>/pki/ca.crt, as 'certs generate' and 'certs generate-csr' write
for several nodes), each is renewed, its lines prefixed with '<node>: ';
every node is checked before anything is written.

Usage:
  joinkit certs renew all|NAME... --out-dir DIR [--config FILE]

${FLAGS.help}
The run's start time is the global --now (default: the system time).

${EXIT_CODES}
  (1: an external or unusable CA, an etcd name with etcd.external, an
  unreadable file, nothing renewed (DIR missing, or no certificate named is
  there); 2: no NAME, a name kubeadm does not have (its 'unknown command'),
  all mixed with names, a bad flag)

Examples:
  joinkit certs renew all --out-dir /srv/cp-1 --config kubeadm.yaml
  joinkit certs renew apiserver admin.conf --out-dir /srv/cp-1
`,
  async run(ctx) {
    expectArgs(ctx, 1, Infinity, "all|NAME");
    const outDir = requireOutDir(ctx.flags);
    if (ctx.args.includes("all") && ctx.args.length > 1) {
      throw new UsageError("all cannot be combined with certificate names");
    }
    const { renewHandlers } = await import("../../lib/phases/renew.ts");
    // kubeadm's names are its subcommands: another one is cobra's usage error, before any file.
    const known = renewHandlers({ externalEtcd: false }).map((h) => h.name);
    const unknown = ctx.args.find((n) => n !== "all" && !known.includes(n));
    if (unknown !== undefined) {
      throw new UsageError(
        `unknown command ${JSON.stringify(unknown)} for "certs renew" (one of: all, ${
          known.join(", ")
        })`,
      );
    }
    const spec = await readPkiConfig(ctx, false);
    const st = nodeFs().statSync(outDir, { throwIfNoEntry: false });
    if (!st?.isDirectory()) {
      throw new InputError(`${outDir}: ${st ? "not a directory" : "no such file or directory"}`);
    }
    const { controlPlanePkiSpec } = await import("../../lib/phases/certlist.ts");
    const { renewCertificates } = await import("../../lib/phases/renew.ts");
    // DIR is one tree, or holds the node directories of a several-node run (DIR/<node>/pki, …).
    const top = readTree(outDir, treePaths());
    const nodes = top.size ? [] : nodeDirectories(outDir);
    const trees = nodes.length
      ? nodes.map((n) => ({
        prefix: `${n}/`,
        existing: readTree(path.join(outDir, n), treePaths()),
      }))
      : [{ prefix: "", existing: top }];
    // Every tree is checked before anything is written.
    const results = [];
    for (const t of trees) {
      results.push({
        prefix: t.prefix,
        r: await renewCertificates({
          names: ctx.args,
          existing: t.existing,
          spec: spec ?? controlPlanePkiSpec({}),
          now: ctx.now,
        }),
      });
    }
    writeFilesAtomic(
      results.flatMap(({ prefix, r }) =>
        r.files.map((f) => ({
          path: path.join(outDir, prefix + f.path),
          data: f.data,
          mode: f.mode,
          root: outDir,
        }))
      ),
      true,
    );
    const renewed = results.reduce((n, { r }) => n + r.renewed.length, 0);
    if (!nodes.length) { for (const l of results[0]!.r.lines) ctx.stderr(l); }
    else {
      // kubeadm's lines per node, prefixed with it; the closing lines once.
      for (const { prefix, r } of results) {
        for (const l of r.lines) {
          if (l !== "" && !l.startsWith("Done renewing")) {
            ctx.stderr(`${prefix.slice(0, -1)}: ${l}`);
          }
        }
      }
      const done = results.flatMap(({ r }) => r.lines).find((l) => l.startsWith("Done renewing"));
      if (done) {
        ctx.stderr("");
        ctx.stderr(done);
      }
    }
    if (renewed === 0) {
      // kubeadm exits 0 here; a pipeline would take that for a renewal.
      throw new InputError(
        `nothing renewed: no certificate of ${ctx.args.join(", ")} under ${outDir}`,
      );
    }
  },
};

/** The subdirectories of `dir` that hold a kubeadm tree (`<node>/pki/ca.crt`), sorted; links are not followed. */
function nodeDirectories(dir: string): string[] {
  const fs = nodeFs();
  return fs.readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(dir, e.name, "pki", "ca.crt")))
    .map((e) => e.name)
    .sort();
}
