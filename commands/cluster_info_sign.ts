/**
 * `joinkit cluster-info sign`: the bootstrapsigner controller's job on an
 * existing cluster-info ConfigMap.
 *
 * @module
 */

import {
  secretsIn,
  signClusterInfoData,
  SigningSelection,
} from "../lib/discovery/bootstrap_signer.ts";
import process from "node:process";
import { findClusterInfo } from "../lib/discovery/cluster_info.ts";
import { UsageError } from "../lib/base/errors.ts";
import { parseManifestChunk, parseManifests, renderObjects } from "../lib/k8s/manifest.ts";
import { simpleSecretsChunk } from "../lib/k8s/simple_secrets.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import { expectArgs, flagList, flagSet, outputFormat } from "./_flags.ts";
import { readManifestChunks } from "./_io.ts";
import { readInput } from "./_read.ts";
import { progress } from "./_progress.ts";

const FLAGS = flagSet("cluster-info sign", [
  ["secrets", "bootstrap-token Secret manifests (files, dirs or -), repeatable (required)"],
  ["output", "yaml (default) or json"],
]);

export const command: Command = {
  name: "cluster-info sign",
  options: FLAGS.options,
  help: `Update a cluster-info ConfigMap's signatures as the bootstrapsigner controller does.

data.kubeconfig is kept byte for byte. Every jws-kubeconfig-* key is dropped
and one is written for each signing token among the --secrets: a
bootstrap-token Secret in kube-system (or with no namespace), named bootstrap-token-<token-id>, with a
token-secret, usage-bootstrap-signing "true", not expired at --now (first one
wins for a duplicate ID). So missing signatures are added, wrong ones
replaced, and those of tokens gone, expired or not for signing removed. Other
fields of the ConfigMap are kept. What changed is reported on stderr by token
ID. FILE may hold other objects too (e.g. a 'joinkit init' stream).

Usage:
  joinkit cluster-info sign FILE --secrets FILE... [-o yaml|json]

${FLAGS.help}
Output (-o json): the updated ConfigMap object, keys sorted, as kubectl
prints it.

${EXIT_CODES}

Examples:
  kubectl -n kube-public get cm cluster-info -o yaml > ci.yaml
  kubectl -n kube-system get secrets --field-selector type=bootstrap.kubernetes.io/token \\
    -o yaml > tokens.yaml
  joinkit cluster-info sign ci.yaml --secrets tokens.yaml | kubectl apply -f -
`,
  run(ctx) {
    expectArgs(ctx, 1, 1, "FILE (the cluster-info ConfigMap)");
    smallerInlining();
    const format = outputFormat(ctx.flags, ["yaml", "json"] as const, "yaml");
    const secretFiles = flagList(ctx.flags, "secrets");
    if (secretFiles.length === 0) throw new UsageError("missing required flag --secrets");
    const input = readInput(ctx.args[0]!);
    const info = findClusterInfo(parseManifests(input.text, input.name), input.name);
    // The Secrets are read document by document and judged as they come: memory holds the
    // signing tokens, not the input.
    const selection = new SigningSelection(ctx.now);
    const counts = { documents: 0, objects: 0 };
    const shown = progress(ctx, "cluster-info sign");
    for (const chunk of readManifestChunks(secretFiles)) {
      // Fleets in the common simple shape are read straight into Secrets; the rest the general way.
      const simple = simpleSecretsChunk(chunk, counts);
      if (simple !== undefined) {
        shown.tick(simple.length);
        for (const s of simple) selection.add(s);
        continue;
      }
      const objects = parseManifestChunk(chunk, counts);
      shown.tick(objects.length);
      for (const s of secretsIn(objects, chunk.source)) selection.add(s);
    }
    shown.done();
    const { tokens, skipped } = selection;
    const result = signClusterInfoData(info.data, tokens, input.name);
    const q = JSON.stringify;
    // One call per line: ctx.stderr renders each call as exactly one line.
    const say = (l: string) => ctx.stderr(`[bootstrap-signer] ${l}`);
    for (const s of skipped) say(`skipping Secret ${s.name}: ${s.reason}`);
    for (const id of result.added) say(`added signature for token ID ${q(id)}`);
    for (const id of result.replaced) say(`replaced wrong signature for token ID ${q(id)}`);
    for (const id of result.removed) say(`removed signature for token ID ${q(id)}`);
    if (!result.changed) say("signatures already up to date");
    ctx.stdout(renderObjects([{ ...info.object, data: result.data }], format));
  },
};

/**
 * A smaller TurboFan inlining budget for the rest of the run (920 → 200
 * bytes of bytecode a function), as `cert inspect` sets it: the reader's,
 * signer's and writer's loops are optimised within their first thousand
 * Secrets, and compiling them with everything inlined runs on a second
 * thread, in the process's CPU time. Only the compiler's heuristics change,
 * never what the code computes; a runtime that refuses the flag runs as before.
 */
function smallerInlining(): void {
  try {
    process.getBuiltinModule("node:v8").setFlagsFromString(
      "--max-inlined-bytecode-size-cumulative=200",
    );
  } catch {
    // Flags frozen or absent: the default budget.
  }
}
