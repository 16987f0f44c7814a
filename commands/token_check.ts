/**
 * `joinkit token check`: judge a bearer token as kube-apiserver's bootstrap
 * token authenticator would, against Secret manifests.
 *
 * @module
 */

import { authenticateBootstrapToken } from "../lib/tokens/authenticator.ts";
import { SECRET_PREFIX, tokenFromString } from "../lib/tokens/token.ts";
import { CheckError, UsageError } from "../lib/base/errors.ts";
import { parseManifestChunk, toJson, toYaml } from "../lib/k8s/manifest.ts";
import { type DecodedSecret, decodeSecret, isSecretObject } from "../lib/k8s/secret.ts";
import { simpleSecretsChunk } from "../lib/k8s/simple_secrets.ts";
import { type Command, EXIT_CODES } from "./_command.ts";
import { expectArgs, flagList, flagSet, flagString, missingFlag, outputFormat } from "./_flags.ts";
import { readManifestChunks } from "./_io.ts";
import { readInput } from "./_read.ts";
import { readTokenFile } from "./_secret_input.ts";
import { SecretFileSkips } from "./_secret_inputs.ts";

const FLAGS = flagSet("token check", [
  [
    "secrets",
    "Secret manifests: YAML streams, JSON objects or Lists,\ndirectories (recursively; a file there that holds no Secret is\nskipped with a warning), '-' for stdin; repeatable (required)",
  ],
  ["output", "text (default), json or yaml (a TokenReview-style status)"],
  [
    "token-file",
    "read TOKEN from FILE or stdin (-) instead of the command\nline (one token; the file must not be group/world-readable)",
  ],
]);

export const command: Command = {
  name: "token check",
  options: FLAGS.options,
  help: `Judge a bearer token as kube-apiserver's bootstrap token authenticator does.

Runs the authenticator's steps in upstream order against the Secrets read
from --secrets: 1 token format, 2 Secret kube-system/bootstrap-token-<id>
exists (a Secret without namespace counts as kube-system; with duplicates the
last wins), 3 not being deleted, 4 type bootstrap.kubernetes.io/token with
data, 5 token-secret matches (constant-time), 6 token-id matches, 7 not
expired at --now (or the clock), 8 usage-bootstrap-authentication=true,
9 auth-extra-groups valid. On success prints the user and its sorted groups;
otherwise one line on stderr naming the step that said no, and exit 3.
Objects that are not Secrets are ignored.

Usage:
  joinkit token check TOKEN --secrets FILE|DIR|- [--secrets ...] [-o text|json|yaml]
  joinkit token check --token-file FILE|- --secrets FILE|DIR|- [...]

Arguments:
  TOKEN   the bearer token; '-' reads it from the first line of stdin
          (keeps it out of the process list); or --token-file

${FLAGS.help}
Output (-o json), on success: a TokenReview-style object: apiVersion
authentication.k8s.io/v1, kind TokenReview, status.authenticated (true) and
status.user (username, groups). Keys sorted. A rejected token prints nothing
on stdout (exit 3).

${EXIT_CODES}

Examples:
  joinkit token check abcdef.0123456789abcdef --secrets secrets.yaml
  echo abcdef.0123456789abcdef | joinkit token check - --secrets examples/tokens/ --now 2026-01-01T12:00:00Z
`,
  run(ctx) {
    // Secrets off argv: --token-file FILE|- (mode-checked, one token) instead of TOKEN.
    const tokenFile = ctx.flags["token-file"] === undefined
      ? undefined
      : flagString(ctx.flags, "token-file");
    if (tokenFile !== undefined && ctx.args.length > 0) {
      throw new UsageError("TOKEN and --token-file: give one");
    }
    if (tokenFile === undefined) expectArgs(ctx, 1, 1, "TOKEN");
    const format = outputFormat(ctx.flags, ["text", "json", "yaml"] as const, "text");
    const paths = flagList(ctx.flags, "secrets");
    if (paths.length === 0) missingFlag(ctx.flags, "--secrets");
    let token: string;
    if (tokenFile !== undefined) {
      if (tokenFile === "-" && paths.includes("-")) {
        throw new UsageError("--token-file and --secrets cannot both be '-'");
      }
      token = readTokenFile(tokenFile, "token-file");
    } else {
      token = ctx.args[0]!;
      if (token === "-") {
        if (paths.includes("-")) throw new UsageError("TOKEN and --secrets cannot both be '-'");
        token = (readInput("-").text.split(/\r?\n/)[0] ?? "").trim();
      }
    }
    const secrets: DecodedSecret[] = [];
    // Read document by document; every Secret is decoded (a malformed one is refused as ever),
    // but only those the authenticator's lookup can pick (its name) are kept.
    const wanted = SECRET_PREFIX + (tokenFromString(token)?.id ?? "");
    const counts = { documents: 0, objects: 0 };
    // A file found in a directory that holds no Secret is skipped, with a warning.
    const skips = new SecretFileSkips(ctx.stderr);
    for (const chunk of readManifestChunks(paths)) {
      if (!skips.next(chunk)) continue;
      // Fleets in the common simple shape are read straight into the same Secrets.
      const simple = simpleSecretsChunk(chunk, counts);
      if (simple !== undefined) {
        if (simple.length) skips.secret();
        for (const secret of simple) if (secret.name === wanted) secrets.push(secret);
        continue;
      }
      let objects;
      try {
        objects = parseManifestChunk(chunk, counts);
      } catch (e) {
        if (skips.unreadable(e, chunk)) continue;
        throw e;
      }
      for (const obj of objects) {
        if (!isSecretObject(obj)) continue;
        skips.secret();
        const secret = decodeSecret(obj, chunk.source);
        if (secret.name === wanted) secrets.push(secret);
      }
    }
    skips.end();
    const result = authenticateBootstrapToken(token, secrets, ctx.now);
    if (!result.authenticated) {
      throw new CheckError(
        `token rejected at step ${result.step} (${result.rule}): ${result.reason}`,
      );
    }
    if (format === "text") {
      ctx.stdout(`user: ${result.user}\ngroups: ${result.groups.join(",")}\n`);
      return;
    }
    const review = {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenReview",
      status: { authenticated: true, user: { groups: result.groups, username: result.user } },
    };
    ctx.stdout(format === "json" ? toJson(review) : toYaml(review));
  },
};
