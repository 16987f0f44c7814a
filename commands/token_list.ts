/**
 * `joinkit token list`: `kubeadm token list` over Secret manifests.
 *
 * @module
 */

import {
  bootstrapTokenFromSecret,
  type ParsedBootstrapToken,
} from "../lib/tokens/bootstrap_token.ts";
import { ExitCode } from "../lib/base/errors.ts";
import { parseManifestChunk, renderObjects } from "../lib/k8s/manifest.ts";
import {
  type DecodedSecret,
  decodeSecret,
  describeObject,
  describeSecret,
  isSecretObject,
} from "../lib/k8s/secret.ts";
import { simpleSecretsChunk } from "../lib/k8s/simple_secrets.ts";
import { SECRET_TYPE, TOKEN_NAMESPACE } from "../lib/tokens/token.ts";
import { sortTokensByName, tokenOutputObject, writeTokenTable } from "../lib/tokens/token_list.ts";
import { goJsonIndent } from "../lib/go/json.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import { flagSet, outputFormat } from "./_flags.ts";
import { readManifestChunks } from "./_io.ts";
import { progress } from "./_progress.ts";
import { SecretFileSkips } from "./_secret_inputs.ts";

const FLAGS = flagSet("token list", [
  [
    "output",
    "text (default): kubeadm's table, byte for byte;\njson: one output.kubeadm.k8s.io/v1alpha3 BootstrapToken\nobject per token, concatenated, in kubeadm's field order;\nyaml: the same objects as a '---' stream, keys sorted",
  ],
]);

/** Names the Secret in messages: `<source>: Secret <namespace>/<name>` and the like. */
function what(secret: DecodedSecret, source: string, obj: unknown): string {
  return `${source}: ${obj === undefined ? describeSecret(secret) : describeObject(obj)}`;
}

/** Tokens written to stdout at a time with -o json or -o yaml. */
const PIECE = 256;

export const command: Command = {
  name: "token list",
  options: FLAGS.options,
  help: `List bootstrap tokens from Secret manifests, as 'kubeadm token list' prints them.

Reads Secrets (YAML streams, JSON objects or Lists, directories recursively,
'-' for stdin; stdin when no argument is given). A file found in a directory
that holds no Secret (a kubeconfig, init's join-command.txt) is skipped with
one warning line; a file named on its own must parse. As kubeadm lists only
Secrets of type bootstrap.kubernetes.io/token in kube-system, other objects
are skipped silently; a Secret without namespace counts as kube-system, one
in another namespace is skipped with a warning. Rows are sorted by Secret
name; a name seen twice keeps the later object (as 'kubectl apply' would),
with a warning. The TTL column is relative to --now (or the clock).

A bootstrap token Secret that does not parse (bad base64, no token-id, name
not bootstrap-token-<id>, malformed secret or expiration) is reported on
stderr, one line naming the file and the object (never the token), and
skipped; the rest are still listed, and the exit code is then 1.

As kubeadm's, the output shows the full tokens, secrets included.

Usage:
  joinkit token list [FILE|DIR|-]... [-o text|json|yaml]

${FLAGS.help}
Output (-o json): kubeadm's own shape and order (as 'kubeadm token list -o
json' prints it: each object indented by Go's encoding/json), not sorted.

${EXIT_CODES}

Examples:
  joinkit token list examples/tokens/ --now 2026-01-01T12:00:00Z
  kubectl get secrets -n kube-system -o yaml | joinkit token list
  joinkit token list secrets.yaml -o json | jq -r .token
`,
  run(ctx) {
    const format = outputFormat(ctx.flags, ["text", "json", "yaml"] as const, "text");
    // The tokens by Secret name (a later one replaces an earlier one in its place), and where
    // each was read.
    const byName = new Map<string, number>();
    const listed: ParsedBootstrapToken[] = [];
    const sources: string[] = [];
    let problems = 0;
    const counts = { documents: 0, objects: 0 };
    const shown = progress(ctx, "token list");
    // One Secret judged and listed; `obj`: the object it was decoded from, when read the
    // general way (for messages).
    const list = (secret: DecodedSecret, source: string, obj?: unknown) => {
      if (secret.type !== SECRET_TYPE) return;
      if (secret.namespace !== "" && secret.namespace !== TOKEN_NAMESPACE) {
        ctx.stderr(
          `warning: ${what(secret, source, obj)}: skipped, not in namespace ${TOKEN_NAMESPACE}`,
        );
        return;
      }
      try {
        const token = bootstrapTokenFromSecret(secret);
        const earlier = byName.get(token.name);
        if (earlier === undefined) {
          byName.set(token.name, listed.length);
          listed.push(token);
          sources.push(source);
        } else {
          ctx.stderr(
            `warning: ${what(secret, source, obj)}: replaces the one in ${sources[earlier]}`,
          );
          listed[earlier] = token;
          sources[earlier] = source;
        }
      } catch (e) {
        ctx.stderr(`error: ${what(secret, source, obj)}: ${(e as Error).message}`);
        problems++;
      }
    };
    // A file found in a directory that holds no Secret is skipped, with a warning.
    const skips = new SecretFileSkips(ctx.stderr);
    // Inputs are read document by document: memory holds the tokens, not the input.
    for (const chunk of readManifestChunks(ctx.args.length ? ctx.args : ["-"])) {
      const source = chunk.source;
      if (!skips.next(chunk)) continue;
      // Fleets in the common simple shape are read straight into Secrets; the rest the general way.
      const simple = simpleSecretsChunk(chunk, counts);
      if (simple !== undefined) {
        shown.tick(simple.length);
        if (simple.length) skips.secret();
        for (const secret of simple) list(secret, source);
        continue;
      }
      let objects;
      try {
        objects = parseManifestChunk(chunk, counts);
      } catch (e) {
        if (skips.unreadable(e, chunk)) continue;
        throw e;
      }
      shown.tick(objects.length);
      for (const obj of objects) {
        if (!isSecretObject(obj)) continue;
        skips.secret();
        let secret;
        try {
          secret = decodeSecret(obj, source);
        } catch (e) {
          ctx.stderr(`error: ${(e as Error).message}`);
          problems++;
          continue;
        }
        list(secret, source, obj);
      }
    }
    skips.end();
    shown.done();
    const tokens = sortTokensByName(listed);
    if (tokens.length === 0 && problems === 0) {
      ctx.stderr("no bootstrap token Secrets found");
    }
    // Written in pieces, so a fleet's output is never held whole.
    if (format === "text") writeTokenTable(tokens, ctx.now, ctx.stdout);
    else {
      for (let i = 0; i < tokens.length; i += PIECE) {
        const piece = tokens.slice(i, i + PIECE).map(tokenOutputObject);
        ctx.stdout(
          format === "json"
            ? piece.map((o) => goJsonIndent(o)).join("")
            : (i > 0 ? "---\n" : "") + renderObjects(piece, "yaml"),
        );
      }
    }
    return problems > 0 ? ExitCode.input : ExitCode.ok;
  },
};
