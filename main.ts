/**
 * joinkit's entry point: parses the command line, loads the one command asked
 * for (and only it, so a one-liner loads no more than it needs), runs it, and
 * maps errors to exit codes. The only place that sets the exit status.
 *
 * @module
 */

import process from "node:process";
import { parseArgs } from "node:util";
import type { Command, Context, Flags } from "./commands/_command.ts";
import {
  diagnosticLine,
  ExitCode,
  JoinkitError,
  messageOf,
  UsageError,
} from "./lib/base/errors.ts";
import { VERSION } from "./lib/base/version.ts";

type Loader = () => Promise<{ command: Command }>;

interface Entry {
  summary: string;
  load: Loader;
}

/** Every command, by the words that select it. */
const COMMANDS: Record<string, Entry> = {
  "token generate": {
    summary: "Print new random bootstrap tokens",
    load: () => import("./commands/token_generate.ts"),
  },
  "token create": {
    summary: "Render bootstrap-token Secrets as kubeadm creates them",
    load: () => import("./commands/token_create.ts"),
  },
  "token list": {
    summary: "List bootstrap tokens from Secret manifests, as kubeadm token list",
    load: () => import("./commands/token_list.ts"),
  },
  "token check": {
    summary: "Judge a bearer token as kube-apiserver's bootstrap authenticator does",
    load: () => import("./commands/token_check.ts"),
  },
  "token auth-file": {
    summary: "Print a --token-auth-file line with a fresh token",
    load: () => import("./commands/token_auth_file.ts"),
  },
  "ca create": {
    summary: "Create a cluster CA like kubeadm's ca.crt/ca.key",
    load: () => import("./commands/ca_create.ts"),
  },
  "ca hash": {
    summary: "Print the sha256:<hex> SPKI pin of each CA certificate",
    load: () => import("./commands/ca_hash.ts"),
  },
  "ca pin-check": {
    summary: "Check CA certificates against --discovery-token-ca-cert-hash pins",
    load: () => import("./commands/ca_pin_check.ts"),
  },
  "cluster-info create": {
    summary: "Render the kube-public/cluster-info ConfigMap with its JWS signatures",
    load: () => import("./commands/cluster_info_create.ts"),
  },
  "cluster-info sign": {
    summary: "Update a cluster-info's signatures as the bootstrapsigner controller does",
    load: () => import("./commands/cluster_info_sign.ts"),
  },
  "cluster-info verify": {
    summary: "Verify a cluster-info offline as kubeadm join's token discovery does",
    load: () => import("./commands/cluster_info_verify.ts"),
  },
  "kubeconfig bootstrap": {
    summary: "Write the kubelet's bootstrap kubeconfig (bootstrap-kubelet.conf)",
    load: () => import("./commands/kubeconfig_bootstrap.ts"),
  },
  "join-command": {
    summary: "Print the kubeadm join command line",
    load: () => import("./commands/join_command.ts"),
  },
  "rbac": {
    summary: "Render the RBAC objects kubeadm's bootstrap-token phase creates",
    load: () => import("./commands/rbac.ts"),
  },
  "init": {
    summary: "Render the whole bootstrap-token phase: Secrets, RBAC, cluster-info, kubeconfig",
    load: () => import("./commands/init.ts"),
  },
  "csr create": {
    summary: "Make a kubelet key, PKCS#10 CSR and CertificateSigningRequest object",
    load: () => import("./commands/csr_create.ts"),
  },
  "csr inspect": {
    summary: "Show and judge CSRs as the API server, signers and approver would",
    load: () => import("./commands/csr_inspect.ts"),
  },
  "csr sign": {
    summary: "Sign CSRs offline as kube-controller-manager's signers do",
    load: () => import("./commands/csr_sign.ts"),
  },
  "cert verify": {
    summary: "Check an issued certificate against its CA, signer rules, node and key",
    load: () => import("./commands/cert_verify.ts"),
  },
  "cert inspect": {
    summary: "Show certificates and their expiry, from files, bundles or a pki/ directory",
    load: () => import("./commands/cert_inspect.ts"),
  },
};

const GLOBAL_HELP =
  `joinkit ${VERSION} — kubeadm's bootstrap-token phase and the kubelet TLS bootstrap, offline

Usage:
  joinkit <command> [flags]
  joinkit <command> --help
  joinkit --version

Commands:
${Object.entries(COMMANDS).map(([name, e]) => `  ${name.padEnd(22)}${e.summary}`).join("\n")}

Global flags:
  --now RFC3339   fix the clock for every time-dependent output
  -h, --help      show help
  --version       print the version

Exit codes:
  0  success
  1  bad input or I/O failure
  2  usage error (unknown flag, missing argument)
  3  a check ran and said no (invalid, expired, untrusted)
`;

/** Finds the command named by the leading words of argv. */
function lookup(argv: string[]): { name: string; rest: string[] } | undefined {
  const two = argv.slice(0, 2).join(" ");
  if (argv.length >= 2 && COMMANDS[two]) return { name: two, rest: argv.slice(2) };
  const one = argv[0];
  if (one !== undefined && COMMANDS[one]) return { name: one, rest: argv.slice(1) };
  return undefined;
}

function groupHelp(group: string): string | undefined {
  const names = Object.keys(COMMANDS).filter((n) => n.startsWith(group + " "));
  if (names.length === 0) return undefined;
  return `Usage:\n  joinkit ${group} <command> [flags]\n\nCommands:\n${
    names.map((n) => `  ${n.padEnd(22)}${COMMANDS[n]!.summary}`).join("\n")
  }\n\nRun 'joinkit ${group} <command> --help' for details.\n`;
}

/** Turns `parseArgs`' long messages into one short line. */
function describeArgError(e: unknown): string {
  const msg = messageOf(e);
  const unknown = /Unknown option '([^']+)'/.exec(msg);
  if (unknown) return `unknown flag ${unknown[1]}`;
  const missing = /Option '(-\w, )?(--[\w-]+)[^']*' argument missing/.exec(msg);
  if (missing) return `flag ${missing[2]} needs a value`;
  const notValue = /Option '(-\w, )?(--[\w-]+)[^']*' does not take an argument/.exec(msg);
  if (notValue) return `flag ${notValue[2]} takes no value`;
  const ambiguous = /Option '(-\w, )?(--[\w-]+)[^']*' argument is ambiguous/.exec(msg);
  if (ambiguous) {
    return `flag ${ambiguous[2]} value starts with "-": write ${ambiguous[2]}=<value>`;
  }
  const positional = /Unexpected argument '([^']+)'/.exec(msg);
  if (positional) return `unexpected argument ${JSON.stringify(positional[1])}`;
  return msg;
}

/**
 * The only writer to stderr: one call, one line, rendered by `diagnosticLine`
 * (control characters escaped, token secrets withheld, cut), whatever a
 * command or an input holds. tests/one_line_test.ts audits that nothing else
 * in main.ts or commands/ writes to stderr.
 */
function writeStderrLine(line: string): void {
  process.stderr.write(diagnosticLine(line) + "\n");
}

/** Multi-line text we wrote ourselves (help, a debug stack), line by line. */
function writeStderrText(text: string): void {
  for (const line of text.replace(/\n$/, "").split("\n")) writeStderrLine(line);
}

/** Runs joinkit with `argv`; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const out = (text: string) => void process.stdout.write(text);
  const err = writeStderrLine;
  try {
    const first = argv[0];
    if (first === undefined || first === "-h" || first === "--help" || first === "help") {
      if (first === undefined) {
        writeStderrText(GLOBAL_HELP);
        return ExitCode.usage;
      }
      out(GLOBAL_HELP);
      return ExitCode.ok;
    }
    if (first === "--version" || first === "version") {
      out(`joinkit ${VERSION}\n`);
      return ExitCode.ok;
    }
    const found = lookup(argv);
    if (!found) {
      const help = groupHelp(first);
      if (help && (argv[1] === "-h" || argv[1] === "--help")) {
        out(help);
        return ExitCode.ok;
      }
      if (help) {
        const sub = argv[1];
        throw new UsageError(
          sub === undefined
            ? `'joinkit ${first}' needs a command: see 'joinkit ${first} --help'`
            : `unknown command 'joinkit ${first} ${sub}': see 'joinkit ${first} --help'`,
        );
      }
      throw new UsageError(`unknown command ${JSON.stringify(first)}: see 'joinkit --help'`);
    }
    const { command } = await COMMANDS[found.name]!.load();
    let parsed;
    try {
      parsed = parseArgs({
        args: found.rest,
        options: {
          ...command.options,
          now: { type: "string" },
          help: { type: "boolean", short: "h" },
        },
        allowPositionals: true,
        strict: true,
      });
    } catch (e) {
      throw new UsageError(`${describeArgError(e)} (see 'joinkit ${found.name} --help')`);
    }
    const flags = parsed.values as Flags;
    if (flags.help === true) {
      out(command.help.endsWith("\n") ? command.help : command.help + "\n");
      return ExitCode.ok;
    }
    let now = new Date();
    if (typeof flags.now === "string") {
      const { parseRfc3339 } = await import("./lib/go/time.ts");
      now = parseRfc3339(flags.now, "--now");
    }
    const ctx: Context = { args: parsed.positionals, flags, now, stdout: out, stderr: err };
    const code = await command.run(ctx);
    return code ?? ExitCode.ok;
  } catch (e) {
    if (e instanceof JoinkitError) {
      err(`error: ${messageOf(e)}`);
      return e.exitCode;
    }
    err(`error: internal error: ${messageOf(e)}`);
    if (process.env.JOINKIT_DEBUG) {
      writeStderrText(e instanceof Error ? String(e.stack) : String(e));
    }
    return ExitCode.input;
  }
}

// A closed pipe (`joinkit … | head -1`) ends the run quietly, as in other Unix tools.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(ExitCode.ok);
  throw e;
});

// Anything that escapes a command (a stream error, a stray rejected promise) is still one
// line and exit 1, never a stack trace that might quote input.
const fatal = (e: unknown) => {
  writeStderrLine(`error: internal error: ${messageOf(e)}`);
  if (process.env.JOINKIT_DEBUG) writeStderrText(String(e instanceof Error ? e.stack : e));
  process.exit(ExitCode.input);
};
process.on("uncaughtException", fatal);
process.on("unhandledRejection", fatal);

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
