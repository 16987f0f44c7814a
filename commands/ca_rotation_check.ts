/**
 * `joinkit ca rotation-check`: during a manual CA rotation, list which
 * kubeconfigs, cluster-info ConfigMaps, join commands, JoinConfigurations
 * and certificates still trust, pin or were issued by the old CA only.
 *
 * @module
 */

import * as fs from "node:fs";
import { InputError, JoinkitError, oneLine } from "../lib/base/errors.ts";
import {
  checkArtefact,
  newCaFrom,
  OLD_ONLY,
  type RotationFinding,
} from "../lib/discovery/ca_rotation.ts";
import { tabwrite } from "../lib/go/tabwriter.ts";
import { loadCertsPem } from "../lib/pki/certsource.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import { expectArgs, flagSet, optionalOutput, renderData, requireString } from "./_flags.ts";
import { walkFiles } from "./_io.ts";
import { readInput } from "./_read.ts";
import { isArtefactPath, payloadFiles } from "../lib/phases/payload_files.ts";

const FLAGS = flagSet("ca rotation-check", [
  ["ca", "the NEW CA certificate (PEM; every certificate in it counts as new) (required)"],
  ["output", "text (default: a table), json or yaml"],
]);

export const command: Command = {
  name: "ca rotation-check",
  options: FLAGS.options,
  help: `Tell which artefacts still trust, pin or were issued by the old CA only,
during the "Manual Rotation of CA Certificates" procedure.

Each FILE (or every regular file under each DIR, recursively, dot-files
skipped, symlinks to files followed) is read and each CA-related part classified against --ca:
  kubeconfigs (admin.conf, kubelet.conf, bootstrap-kubelet.conf, discovery
  files): each cluster's certificate-authority-data, and each user's
  client-certificate-data;
  cluster-info ConfigMaps (data.kubeconfig), kube-root-ca.crt ConfigMaps and
  Secrets holding ca.crt;
  'kubeadm join' command files (--discovery-token-ca-cert-hash; each
  command its own row, FILE (line N) when there are several; commented-out
  lines are not commands) and JoinConfigurations
  (discovery.bootstrapToken.caCertHashes);
  PEM files: a CA bundle (every certificate a CA) or a certificate (the first
  one), and CertificateSigningRequest objects' status.certificate.
Status: trust and pins are new-only, old+new (mid-rotation: both trusted,
shrink later) or old-only; issued certificates are new-ca or other-ca;
unpinned (a join command without pins) and file-ref (a kubeconfig naming its
CA file: check that file) are reported without judging. A CA is the new one
when its public key is, as kubeadm's pins compare. A node payload
('joinkit node-payload': a #cloud-config, with or without '## template:
jinja', or an Ignition config) is opened and each file it carries (the
JoinConfiguration, kubeconfigs, certificates) is checked as
PAYLOAD:PATH. Files with nothing CA-related (keys, other manifests) are
passed over; a file that cannot be read or parsed (or a malformed CA pin,
which kubeadm join refuses) is named on stderr and skipped, and the rest
is still checked.
Exit 3 when any artefact is old-only or other-ca; else exit 1 when an
input was skipped or nothing CA-related was found (a run that checked
nothing never passes); 0 otherwise. A summary line on stderr.

Usage:
  joinkit ca rotation-check --ca NEW-CA.crt FILE|DIR... [-o text|json|yaml]

${FLAGS.help}
Output (-o json): an array of {artefact, kind, status, detail}, in file order.

${EXIT_CODES}

Examples:
  joinkit ca rotation-check --ca new/ca.crt /etc/kubernetes out/ join-command.txt
  kubectl -n kube-public get cm cluster-info -o yaml > ci.yaml &&
    joinkit ca rotation-check --ca new/ca.crt ci.yaml
`,
  async run(ctx) {
    const caPath = requireString(ctx.flags, "ca");
    const format = optionalOutput(ctx.flags, ["text", "json", "yaml"] as const) ?? "text";
    expectArgs(ctx, 1, Number.MAX_SAFE_INTEGER, "FILE or DIR");
    const caIn = readInput(caPath);
    const ca = newCaFrom(await loadCertsPem(caIn.bytes, caIn.name));

    const files: string[] = [];
    let unlisted = 0; // left out by the directory walk
    let skipped = 0; // listed, but not readable as an artefact
    for (const arg of ctx.args) {
      let st: fs.Stats;
      try {
        st = fs.statSync(arg);
      } catch (e) {
        throw new InputError(`${arg}: ${(e as NodeJS.ErrnoException).code ?? oneLine(e)}`);
      }
      if (!st.isDirectory()) files.push(arg);
      else {
        files.push(...walkFiles(arg, (file, reason) => {
          unlisted++;
          ctx.stderr(`skipped: ${file}: ${reason}`);
        }));
      }
    }
    const findings: RotationFinding[] = [];
    let payloads = 0;
    let skippedFiles = 0;
    const skip = (name: string, e: unknown, whole = false) => {
      if (!(e instanceof JoinkitError)) throw e;
      skipped++;
      if (whole) skippedFiles++;
      ctx.stderr(`skipped: ${e.message.startsWith(name) ? e.message : `${name}: ${e.message}`}`);
    };
    for (const file of files) {
      let input;
      try {
        input = readInput(file);
      } catch (e) {
        skip(file, e, true);
        continue;
      }
      // A node payload: the files it carries to the node are the artefacts.
      const payload = payloadFiles(input.text);
      if (payload) {
        payloads++;
        for (const p of payload.problems) {
          skipped++;
          ctx.stderr(`skipped: ${input.name}:${p.path}: ${p.reason}`);
        }
        for (const f of payload.files) {
          const name = `${input.name}:${f.path}`;
          try {
            findings.push(...checkArtefact(f.text, name, ca));
          } catch (e) {
            // A script or placeholder is no artefact: passed over; a YAML/PEM path must read.
            if (isArtefactPath(f.path) || !(e instanceof JoinkitError)) skip(name, e);
          }
        }
        continue;
      }
      try {
        findings.push(...checkArtefact(input.text, input.name, ca));
      } catch (e) {
        skip(input.name, e, true);
      }
    }
    const stale = findings.filter((f) => OLD_ONLY.has(f.status)).length;
    if (format === "text") {
      const rows = [
        "ARTEFACT\tKIND\tSTATUS\tDETAIL",
        ...findings.map((f) => `${f.artefact}\t${f.kind}\t${f.status}\t${f.detail}`),
      ];
      ctx.stdout(tabwrite(rows.join("\n") + "\n", { minwidth: 0, padding: 3 }));
    } else ctx.stdout(await renderData(findings, format));
    const summary =
      `${findings.length} artefact(s) checked in ${files.length - skippedFiles} file(s)` +
      `${payloads ? ` (${payloads} node payload(s))` : ""}` +
      `${skipped + unlisted ? `, ${skipped + unlisted} skipped` : ""}`;
    if (stale > 0) {
      ctx.stderr(
        `error: ${stale} artefact(s) still trust, pin or were issued by the old CA only (${summary})`,
      );
      return 3;
    }
    if (skipped + unlisted > 0) {
      ctx.stderr(`error: ${summary}: a skipped input was not checked, the run does not pass`);
      return 1;
    }
    if (findings.length === 0) {
      ctx.stderr(`error: ${summary}: nothing CA-related to check`);
      return 1;
    }
    ctx.stderr(`${summary}; none depends on the old CA only`);
    return 0;
  },
};
