/**
 * joinkit's dispatcher as a function: {@link run} takes the arguments and an
 * {@link Io} (the streams, environment and clock) and returns the exit code.
 * `main.ts` wires the process to it; tests and fuzzers call it in process.
 *
 * The command table ({@link COMMANDS}) is defined here once: the global help,
 * group help (`joinkit token --help`), "did you mean" and the shell
 * completions (`joinkit completion`) all read it. Each command's module is
 * loaded only when it runs, so a one-liner loads no more than it needs
 * (tests/cli/startup_test.ts).
 *
 * @module
 */

import { parseArgs } from "node:util";
import {
  type Command,
  type Context,
  type Flags,
  type Options,
  probes,
} from "./commands/_command.ts";
import {
  diagnosticLine,
  ExitCode,
  JoinkitError,
  messageOf,
  UsageError,
} from "./lib/base/errors.ts";
import { VERSION } from "./lib/base/version.ts";
import {
  type CommandEntry,
  COMMANDS,
  GLOBAL_FLAGS,
  type GlobalFlag,
  groupCommands,
  GROUPS,
  topWords,
} from "./commands/_table.ts";

const BY_NAME = new Map(COMMANDS.map((e) => [e.name, e]));

/** What {@link run} talks to: the process's streams and environment, or a test's. */
export interface Io {
  /** Writes data to stdout, as is. */
  stdout(text: string): void;
  /**
   * Writes one diagnostic line (no newline: the writer adds it). {@link run}
   * renders every line with `diagnosticLine` first, so one call is one line.
   */
  stderr(line: string): void;
  /** Environment variables run() reads (`JOINKIT_DEBUG`); default none. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The clock when `--now` is absent; default the system clock. */
  clock?: () => Date;
  /** Whether stdin / stdout / stderr are terminals (handed to commands as `ctx.tty`); default false. */
  isTTY?: { stdin?: boolean; stdout?: boolean; stderr?: boolean };
  /**
   * Shows a transient status line on stderr (redrawn in place, then erased),
   * when stderr is a terminal; absent otherwise. Never diagnostics.
   */
  progress?(status: string): void;
  /**
   * Sees whatever run() caught before it became an exit code and a line:
   * tests tell a `JoinkitError` (a refusal) from anything else (a crash).
   */
  onError?(error: unknown): void;
}

function commandList(entries: readonly CommandEntry[]): string {
  // At least two spaces after the longest name (`certs check-expiration` is 22).
  const width = Math.max(22, ...entries.map((e) => e.name.length + 2));
  return entries.map((e) => `  ${e.name.padEnd(width)}${e.summary}`).join("\n");
}

function globalFlagsHelp(): string {
  const left = (f: GlobalFlag) =>
    `${f.short ? `-${f.short}, ` : ""}--${f.name}${f.value ? ` ${f.value}` : ""}`;
  return GLOBAL_FLAGS.map((f) => `  ${left(f).padEnd(16)}${f.help}`).join("\n");
}

/** `joinkit --help`. */
export function globalHelp(): string {
  return `joinkit ${VERSION} — kubeadm's bootstrap-token phase and the kubelet TLS bootstrap, offline

Usage:
  joinkit <command> [flags]
  joinkit <command> --help
  joinkit --version

Commands:
${commandList(COMMANDS)}

Global flags (before or after the command):
${globalFlagsHelp()}

Exit codes:
  0  success
  1  bad input or I/O failure
  2  usage error (unknown flag, missing argument)
  3  a check ran and said no (invalid, expired, untrusted)
`;
}

/** `joinkit <group> --help`, or undefined when `group` is not a group. */
export function groupHelp(group: string): string | undefined {
  const entries = groupCommands(group);
  if (entries.length === 0) return undefined;
  return `Usage:\n  joinkit ${group} <command> [flags]\n\nCommands:\n${
    commandList(entries)
  }\n\nRun 'joinkit ${group} <command> --help' for details.\n`;
}

/**
 * Edit distance with adjacent transpositions (optimal string alignment):
 * `tokn`→`token` and `tlt`→`ttl` are 1 apart.
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    d.push([i]);
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        d[0]!.push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      }
      d[i]!.push(v);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate `word` was most likely meant to be: the closest within an
 * edit distance of 2 (1 for words of 4 characters or fewer, which are all
 * close to each other), else the only candidate `word` is a prefix of.
 * Undefined when none or a tie.
 */
export function suggest(word: string, candidates: readonly string[]): string | undefined {
  if (word.length > 100) return undefined; // a pasted blob is no typo; keep the work bounded
  const limit = word.length <= 4 ? 1 : 2;
  let best: string[] = [];
  let bestD = limit + 1;
  for (const c of new Set(candidates)) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d > limit) continue;
    if (d < bestD) [best, bestD] = [[c], d];
    else if (d === bestD) best.push(c);
  }
  if (best.length === 1) return best[0];
  if (best.length > 1) return undefined;
  const prefixed = [...new Set(candidates)].filter((c) => word.length > 0 && c.startsWith(word));
  return prefixed.length === 1 ? prefixed[0] : undefined;
}

/** Global flags found while looking for the command words. */
interface Globals {
  now?: string;
  help: boolean;
  version: boolean;
}

/**
 * Splits argv into the command words and the rest, taking the global flags
 * that come before or between the command words.
 */
function splitCommand(argv: readonly string[]): { words: string[]; rest: string[]; g: Globals } {
  const g: Globals = { help: false, version: false };
  const words: string[] = [];
  let i = 0;
  while (i < argv.length) {
    const a = argv[i]!;
    if (a.startsWith("-") && a !== "-") {
      if (a === "--now") {
        if (i + 1 >= argv.length) throw new UsageError("flag --now needs a value");
        g.now = argv[i + 1]!;
        i += 2;
        continue;
      }
      if (a.startsWith("--now=")) g.now = a.slice("--now=".length);
      else if (a === "-h" || a === "--help") g.help = true;
      else if (a === "-V" || a === "--version") g.version = true;
      else throw unknownFlag(a, GLOBAL_FLAGS.map((f) => f.name), "joinkit");
      i++;
      continue;
    }
    words.push(a);
    i++;
    // The command is named once its words are: one word unless that word is a group.
    if (words.length === 2 || !GROUPS[words[0]!]) break;
  }
  return { words, rest: argv.slice(i), g };
}

function unknownFlag(flag: string, longNames: readonly string[], where: string): UsageError {
  const name = flag.split("=")[0]!;
  const guess = name.startsWith("--") ? suggest(name.slice(2), longNames) : undefined;
  return new UsageError(
    guess !== undefined
      ? `unknown flag ${name}: did you mean --${guess}?`
      : `unknown flag ${name} (see '${where} --help')`,
  );
}

/** Turns `parseArgs`' long messages into one short line. */
function describeArgError(e: unknown, options: Options, name: string): UsageError {
  const msg = messageOf(e);
  const unknown = /Unknown option '([^']+)'/.exec(msg);
  if (unknown) return unknownFlag(unknown[1]!, Object.keys(options), `joinkit ${name}`);
  const see = ` (see 'joinkit ${name} --help')`;
  const missing = /Option '(-\w, )?(--[\w-]+)[^']*' argument missing/.exec(msg);
  if (missing) return new UsageError(`flag ${missing[2]} needs a value${see}`);
  const notValue = /Option '(-\w, )?(--[\w-]+)[^']*' does not take an argument/.exec(msg);
  if (notValue) return new UsageError(`flag ${notValue[2]} takes no value${see}`);
  const ambiguous = /Option '(-\w, )?(--[\w-]+)[^']*' argument is ambiguous/.exec(msg);
  if (ambiguous) {
    return new UsageError(
      `flag ${ambiguous[2]} value starts with "-": write ${ambiguous[2]}=<value>${see}`,
    );
  }
  const positional = /Unexpected argument '([^']+)'/.exec(msg);
  if (positional) {
    return new UsageError(`unexpected argument ${JSON.stringify(positional[1])}${see}`);
  }
  return new UsageError(`${msg}${see}`);
}

/** The error for command words that name no command, with a guess when one is close. */
function unknownCommand(words: readonly string[]): UsageError {
  const [first, sub] = words;
  if (first === undefined) return new UsageError("no command: see 'joinkit --help'");
  if (GROUPS[first]) {
    if (sub === undefined) {
      return new UsageError(`'joinkit ${first}' needs a command: see 'joinkit ${first} --help'`);
    }
    const subs = groupCommands(first).map((e) => e.name.slice(first.length + 1));
    const guess = suggest(sub, subs);
    return new UsageError(
      guess !== undefined
        ? `unknown command 'joinkit ${first} ${sub}': did you mean 'joinkit ${first} ${guess}'?`
        : `unknown command 'joinkit ${first} ${sub}': see 'joinkit ${first} --help'`,
    );
  }
  const guess = suggest(first, topWords());
  return new UsageError(
    guess !== undefined
      ? `unknown command ${JSON.stringify(first)}: did you mean ${JSON.stringify(guess)}?`
      : `unknown command ${JSON.stringify(first)}: see 'joinkit --help'`,
  );
}

/** `joinkit version [-o text|json|yaml]`: the output format its arguments ask for. */
function versionFormat(rest: readonly string[]): "text" | "json" | "yaml" {
  let format = "text";
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    const m = /^(?:-o|--output)(?:=(.*))?$/.exec(a) ?? /^-o(.+)$/.exec(a);
    if (!m) {
      throw a.startsWith("-")
        ? unknownFlag(a, ["output"], "joinkit")
        : new UsageError(`unexpected argument ${JSON.stringify(a)} (see 'joinkit --help')`);
    }
    const value = m[1] ?? rest[++i];
    if (value === undefined) throw new UsageError("flag --output needs a value");
    format = value;
  }
  if (format !== "text" && format !== "json" && format !== "yaml") {
    throw new UsageError(`--output must be text, json or yaml, not ${JSON.stringify(format)}`);
  }
  return format;
}

/**
 * What `joinkit version -o json|yaml` prints: joinkit's version and commit, the runtime it
 * runs on, and the Kubernetes and Go releases whose rules its judgements follow.
 */
async function versionData(format: "json" | "yaml"): Promise<string> {
  const { COMMIT, GO_VERSION, KUBERNETES_VERSION } = await import("./lib/base/version.ts");
  const { renderData } = await import("./commands/_flags.ts");
  const deno = (globalThis as { Deno?: typeof Deno }).Deno;
  // GOOS/GOARCH words, as kubeadm and kubectl print their platform.
  const goArch = (a: string) => ({ x64: "amd64", x86_64: "amd64", aarch64: "arm64" })[a] ?? a;
  const runtime = deno
    ? {
      name: "deno",
      version: deno.version.deno,
      platform: `${deno.build.os}/${goArch(deno.build.arch)}`,
    }
    : {
      name: "node",
      version: process.versions.node,
      platform: `${process.platform}/${goArch(process.arch)}`,
    };
  return await renderData({
    commit: COMMIT ?? "unknown",
    go: GO_VERSION,
    kubernetes: KUBERNETES_VERSION,
    runtime,
    version: VERSION,
  }, format);
}

/** Text we wrote ourselves (help), on stderr line by line. */
function stderrText(io: Io, text: string): void {
  for (const line of text.replace(/\n$/, "").split("\n")) io.stderr(diagnosticLine(line));
}

/**
 * Reports an error that escaped a command (or, from `main.ts`, the whole run)
 * as one `error: internal error: …` line, plus the stack with `JOINKIT_DEBUG`.
 */
export function reportInternalError(e: unknown, io: Io): void {
  io.stderr(diagnosticLine(`error: internal error: ${messageOf(e)}`));
  if (io.env?.JOINKIT_DEBUG) stderrText(io, e instanceof Error ? String(e.stack) : String(e));
}

/**
 * When `e` says an argument or required flag is missing, the first malformed
 * flag value the command would have met after it, else undefined. The
 * command runs again as a probe: the missing readers stand in placeholders
 * (commands/_flags.ts), nothing is printed or written (commands/_io.ts),
 * and it stops at the first error; only the refusal of a value that was
 * given counts (`isFlagValueError`). `_flags.ts` is loaded only on this path.
 */
async function flagValueErrorBehind(
  e: unknown,
  command: Command,
  ctx: Context,
): Promise<unknown> {
  if (!(e instanceof UsageError)) return undefined;
  const f = await import("./commands/_flags.ts");
  if (!f.isMissingError(e)) return undefined;
  const probe: Context = {
    args: [...ctx.args],
    flags: f.probeFlags(ctx.flags),
    now: ctx.now,
    stdout() {},
    stderr() {},
  };
  probes.running++;
  try {
    await command.run(probe);
  } catch (p) {
    if (f.isFlagValueError(p, probe.flags)) return p;
  } finally {
    probes.running--;
  }
  return undefined;
}

/**
 * Runs joinkit with `argv` (the arguments after the program name) and
 * returns the exit code: 0 success, 1 bad input, 2 usage error, 3 a check
 * said no. Never throws: every error becomes its exit code and one
 * `error: …` line on `io.stderr`.
 */
export async function run(argv: readonly string[], io: Io): Promise<number> {
  const out = (text: string) => io.stdout(text);
  // The only way to stderr: one call, one line, rendered by diagnosticLine (control characters
  // escaped, token secrets withheld, cut), whatever a command or an input holds.
  const err = (line: string) => io.stderr(diagnosticLine(line));
  try {
    const { words, rest, g } = splitCommand(argv);
    if (g.version || (words[0] === "version" && words.length === 1)) {
      const format = versionFormat(words[0] === "version" ? rest : []);
      out(format === "text" ? `joinkit ${VERSION}\n` : await versionData(format));
      return ExitCode.ok;
    }
    if (words[0] === "help") {
      // `joinkit help token list` is `joinkit token list --help`.
      if (rest.length === 0) {
        out(globalHelp());
        return ExitCode.ok;
      }
      return await run([...rest, "--help"], io);
    }
    if (words.length === 0) {
      if (g.help) {
        out(globalHelp());
        return ExitCode.ok;
      }
      stderrText(io, globalHelp());
      return ExitCode.usage;
    }
    const entry = BY_NAME.get(words.join(" "));
    if (!entry) {
      const help = words.length === 1 ? groupHelp(words[0]!) : undefined;
      if (help && g.help) {
        out(help);
        return ExitCode.ok;
      }
      throw unknownCommand(words);
    }
    const { command } = await entry.load();
    const options: Options = {
      ...command.options,
      now: { type: "string" },
      help: { type: "boolean", short: "h" },
      ...(command.options.version ? {} : { version: { type: "boolean", short: "V" } }),
    };
    let parsed;
    try {
      parsed = parseArgs({ args: [...rest], options, allowPositionals: true, strict: true });
    } catch (e) {
      throw describeArgError(e, options, entry.name);
    }
    const flags = parsed.values as Flags;
    if (g.help || flags.help === true) {
      out(command.help.endsWith("\n") ? command.help : command.help + "\n");
      return ExitCode.ok;
    }
    if (flags.version === true && !command.options.version) {
      out(`joinkit ${VERSION}\n`);
      return ExitCode.ok;
    }
    if (flags.now === undefined && g.now !== undefined) flags.now = g.now;
    let now = io.clock?.() ?? new Date();
    if (typeof flags.now === "string") {
      const { parseRfc3339 } = await import("./lib/go/time.ts");
      try {
        now = parseRfc3339(flags.now, "--now");
      } catch (e) {
        // A malformed flag value is a usage error, whatever the value's kind.
        throw e instanceof JoinkitError ? new UsageError(e.message) : e;
      }
    }
    // Whether a stream is a terminal is asked when a command reads it (main.ts's
    // answer may load a module), so ctx.tty and ctx.progress are getters.
    const tty = io.isTTY;
    const draw = io.progress;
    const ctx: Context = {
      args: parsed.positionals,
      flags,
      now,
      stdout: out,
      stderr: err,
      tty: {
        get stdin() {
          return tty?.stdin === true;
        },
        get stdout() {
          return tty?.stdout === true;
        },
        get stderr() {
          return tty?.stderr === true;
        },
      },
    };
    if (draw) {
      Object.defineProperty(ctx, "progress", {
        get: () => tty?.stderr === true ? draw : undefined,
        enumerable: true,
      });
    }
    let code;
    try {
      code = await command.run(ctx);
    } catch (e) {
      // Cobra's order: a malformed flag value before a missing argument or required flag.
      throw (await flagValueErrorBehind(e, command, ctx)) ?? e;
    }
    return code ?? ExitCode.ok;
  } catch (e) {
    io.onError?.(e);
    if (e instanceof JoinkitError) {
      err(`error: ${messageOf(e)}`);
      return e.exitCode;
    }
    reportInternalError(e, io);
    return ExitCode.input;
  }
}
