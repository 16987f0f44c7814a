/**
 * `joinkit completion bash|zsh|fish`: a shell completion script, generated
 * from the command table (cli.ts) and each command's flags (its `options`,
 * named in commands/_flags.ts's vocabulary). The script is static: completing
 * never runs joinkit.
 *
 * @module
 */

import { COMMANDS, GLOBAL_FLAGS, GROUPS, topWords } from "./_table.ts";
import { VERSION } from "../lib/base/version.ts";
import { type Command, EXIT_CODES, type Options } from "./_command.ts";
import * as flagModule from "./_flags.ts";
import { expectArgs } from "./_flags.ts";
import { UsageError } from "../lib/base/errors.ts";

/** The shells a script can be made for. */
export const SHELLS = ["bash", "zsh", "fish"] as const;
type Shell = typeof SHELLS[number];

/** What a flag's value completes to. */
type ValueKind = "file" | "dir" | "none";

/** One flag, as completion sees it. */
export interface CompletionFlag {
  /** Long name, without `--`. */
  name: string;
  short?: string;
  takesValue: boolean;
  /** Fixed values it takes, when the flag lists them. */
  choices?: readonly string[];
  kind: ValueKind;
  /** Its help line, when the vocabulary has one. */
  help?: string;
}

/** One command, as completion sees it. */
export interface CompletionCommand {
  name: string;
  group?: string;
  summary: string;
  flags: CompletionFlag[];
  /** Fixed words its arguments are chosen from; absent: file names. */
  args?: readonly string[];
}

/** Everything a script is made from. */
export interface CompletionSpec {
  commands: CompletionCommand[];
  groups: Readonly<Record<string, string>>;
  /** The first words: groups and one-word commands, in table order. */
  top: string[];
  globals: CompletionFlag[];
}

/** The vocabulary entry of a flag, when commands/_flags.ts has one (read loosely). */
interface VocabularyEntry {
  value?: string;
  help?: string;
  choices?: readonly string[];
  aliases?: readonly { name: string; commands: readonly string[] }[];
}

function vocabulary(): Readonly<Record<string, VocabularyEntry>> {
  const v = (flagModule as Record<string, unknown>).VOCABULARY;
  return v && typeof v === "object" ? v as Record<string, VocabularyEntry> : {};
}

function kindOf(value: string | undefined, takesValue: boolean): ValueKind {
  if (!takesValue) return "none";
  if (value === undefined) return "file"; // a flag the vocabulary does not describe
  if (/DIR/.test(value)) return "dir";
  return /FILE|PATH/.test(value) ? "file" : "none";
}

/** The flags of `command` worth offering: its options, without old names kept for scripts. */
export function completionFlags(command: string, options: Options): CompletionFlag[] {
  const vocab = vocabulary();
  const old = new Set(
    Object.values(vocab).flatMap((d) =>
      (d.aliases ?? []).filter((a) => a.commands.includes(command)).map((a) => a.name)
    ),
  );
  const flags: CompletionFlag[] = [];
  for (const [name, o] of Object.entries(options)) {
    if (old.has(name)) continue;
    const takesValue = o.type === "string";
    const d = vocab[name];
    const choices = (o as { choices?: readonly string[] }).choices ?? d?.choices;
    flags.push({
      name,
      ...(o.short ? { short: o.short } : {}),
      takesValue,
      ...(choices ? { choices } : {}),
      kind: kindOf(d?.value, takesValue),
      ...(typeof d?.help === "string" ? { help: d.help.split("\n")[0]! } : {}),
    });
  }
  return flags;
}

/** Loads every command (once, now) to read its flags. */
export async function completionSpec(): Promise<CompletionSpec> {
  const commands = await Promise.all(COMMANDS.map(async (e) => {
    const { command } = await e.load();
    return {
      name: e.name,
      ...(e.group ? { group: e.group } : {}),
      summary: e.summary,
      flags: completionFlags(e.name, command.options),
      ...(command.argChoices ? { args: command.argChoices } : {}),
    };
  }));
  const globals = GLOBAL_FLAGS.map((f) => ({
    name: f.name,
    ...(f.short ? { short: f.short } : {}),
    takesValue: f.value !== undefined,
    kind: "none" as const,
    help: f.help,
  }));
  return { commands, groups: GROUPS, top: topWords(), globals };
}

/** POSIX shell single quoting. */
function sq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** fish single quoting (backslash escapes only `\` and `'`). */
function fq(s: string): string {
  return `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

function spellings(f: CompletionFlag): string[] {
  return [`--${f.name}`, ...(f.short ? [`-${f.short}`] : [])];
}

/** The summary shown for a first word: its group's line, or the command's own. */
function topSummary(spec: CompletionSpec, word: string): string {
  return spec.groups[word] ?? spec.commands.find((c) => c.name === word)?.summary ?? "";
}

function subName(c: CompletionCommand): string {
  return c.group ? c.name.slice(c.group.length + 1) : c.name;
}

/**
 * Shell `case` functions shared by bash and zsh (the same syntax works in
 * both): subcommands of a group, flags and value-taking flags of a command,
 * argument words of a command.
 */
function caseFunctions(spec: CompletionSpec): string {
  const globals = spec.globals.flatMap(spellings);
  const globalValue = spec.globals.filter((f) => f.takesValue).flatMap(spellings);
  const fn = (name: string, doc: string, rows: [string, string[]][], fallback: string[]) =>
    [
      `# ${doc}`,
      `${name}() {`,
      `  case $1 in`,
      ...rows.filter(([, w]) => w.length).map(([k, w]) =>
        `    ${sq(k)}) printf '%s\\n' ${sq([...w, ...fallback].join(" "))} ;;`
      ),
      ...(fallback.length ? [`    *) printf '%s\\n' ${sq(fallback.join(" "))} ;;`] : []),
      `  esac`,
      `}`,
    ].join("\n");
  return [
    fn(
      "_joinkit_subcommands",
      "The commands of group $1.",
      Object.keys(spec.groups).map((
        g,
      ) => [g, spec.commands.filter((c) => c.group === g).map(subName)]),
      [],
    ),
    fn(
      "_joinkit_flags",
      "Every flag of command $1, the global ones included.",
      spec.commands.map((c) => [c.name, c.flags.flatMap(spellings)]),
      globals,
    ),
    fn(
      "_joinkit_value_flags",
      "The flags of command $1 that take a value.",
      spec.commands.map((c) => [c.name, c.flags.filter((f) => f.takesValue).flatMap(spellings)]),
      globalValue,
    ),
    fn(
      "_joinkit_args",
      "The words the arguments of command $1 are chosen from (none: file names).",
      spec.commands.map((c) => [c.name, [...(c.args ?? [])]]),
      [],
    ),
  ].join("\n\n");
}

/**
 * `case "$cmd|$flag"` rows for the values of flags that take files, a
 * directory or fixed words; any other value (a duration, a name) completes
 * to nothing.
 */
function valueRows(
  spec: CompletionSpec,
  choices: (words: readonly string[]) => string,
  dirs: string,
  files: string,
): string[] {
  const rows: string[] = [];
  for (const c of spec.commands) {
    for (const f of c.flags.filter((f) => f.takesValue)) {
      const action = f.choices
        ? choices(f.choices)
        : f.kind === "dir"
        ? dirs
        : f.kind === "file"
        ? files
        : undefined;
      if (action === undefined) continue;
      rows.push(`    ${spellings(f).map((s) => sq(`${c.name}|${s}`)).join("|")}) ${action} ;;`);
    }
  }
  return rows;
}

/** The walk over the words typed so far (bash and zsh differ only in indexing). */
function walk(words: string, first: number): string {
  return `  local cmd="" w i
  for ((i = ${first}; i < cword; i++)); do
    w=\${${words}[i]}
    case $w in
      -*=*) ;;
      -*) [[ " $(_joinkit_value_flags "$cmd") " == *" $w "* ]] && ((i++)) ;;
      *)
        if [[ -z $cmd ]]; then
          cmd=$w
        elif [[ $cmd != *" "* && -n $(_joinkit_subcommands "$cmd") ]]; then
          cmd="$cmd $w"
        fi
        ;;
    esac
  done`;
}

/** The bash script: `source <(joinkit completion bash)`. */
export function bashScript(spec: CompletionSpec): string {
  const words = (ws: readonly string[]) =>
    `COMPREPLY=($(compgen -W ${sq(ws.join(" "))} -- "$cur"))`;
  return `# bash completion for joinkit ${VERSION}, generated by 'joinkit completion bash'.
# Load it in this shell:  source <(joinkit completion bash)
# or for every shell:     joinkit completion bash > /etc/bash_completion.d/joinkit

${caseFunctions(spec)}

# File (f) or directory (d) names starting with $cur, one per line (names may hold spaces).
_joinkit_files() {
  compopt -o filenames 2>/dev/null
  local IFS=$'\\n'
  COMPREPLY=($(compgen -"$1" -- "$cur"))
}

# Completes the value of flag $2 of command $1 into COMPREPLY.
_joinkit_value() {
  local cur=$3
  case "$1|$2" in
${
    valueRows(
      spec,
      words,
      "_joinkit_files d",
      "_joinkit_files f",
    ).join("\n")
  }
  esac
}

_joinkit() {
  local cur=\${COMP_WORDS[COMP_CWORD]} cword=$COMP_CWORD subs args
  COMPREPLY=()
${walk("COMP_WORDS", 1)}
  if ((i > cword)); then
    _joinkit_value "$cmd" "\${COMP_WORDS[cword - 1]}" "$cur"
  elif [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(_joinkit_flags "$cmd")" -- "$cur"))
  elif [[ -z $cmd ]]; then
    ${words(spec.top)}
  elif subs=$(_joinkit_subcommands "$cmd") && [[ -n $subs ]]; then
    COMPREPLY=($(compgen -W "$subs" -- "$cur"))
  elif args=$(_joinkit_args "$cmd") && [[ -n $args ]]; then
    COMPREPLY=($(compgen -W "$args" -- "$cur"))
  else
    _joinkit_files f
  fi
}

complete -F _joinkit joinkit
`;
}

/** `name:summary` entries for zsh's _describe (colons in the name or summary escaped). */
function describeList(entries: readonly [string, string][]): string {
  return entries.map(([n, s]) => sq(`${n.replace(/:/g, "\\:")}:${s}`)).join(" ");
}

/** The zsh script: save as `_joinkit` in a directory of `$fpath`, or `source <(…)`. */
export function zshScript(spec: CompletionSpec): string {
  const groupRows = Object.keys(spec.groups).map((g) =>
    `    ${sq(g)}) list=(${
      describeList(spec.commands.filter((c) => c.group === g).map((c) => [subName(c), c.summary]))
    }) ;;`
  );
  return `#compdef joinkit
# zsh completion for joinkit ${VERSION}, generated by 'joinkit completion zsh'.
# Load it in this shell:  source <(joinkit completion zsh)
# or for every shell:     joinkit completion zsh > "\${fpath[1]}/_joinkit"

${caseFunctions(spec)}

# Completes the value of flag $2 of command $1.
_joinkit_value() {
  case "$1|$2" in
${valueRows(spec, (ws) => `compadd -- ${ws.map(sq).join(" ")}`, "_files -/", "_files").join("\n")}
  esac
}

_joinkit() {
  local cur=\${words[CURRENT]} cword=$CURRENT subs args
  local -a list
${walk("words", 2)}
  if ((i > cword)); then
    _joinkit_value "$cmd" "\${words[cword - 1]}"
  elif [[ $cur == -* ]]; then
    compadd -- \${=$(_joinkit_flags "$cmd")}
  elif [[ -z $cmd ]]; then
    list=(${describeList(spec.top.map((w) => [w, topSummary(spec, w)]))})
    _describe -t commands 'joinkit command' list
  elif [[ -n $(_joinkit_subcommands "$cmd") ]]; then
    case $cmd in
${groupRows.join("\n")}
    esac
    _describe -t commands "joinkit $cmd command" list
  elif args=$(_joinkit_args "$cmd") && [[ -n $args ]]; then
    compadd -- \${=args}
  else
    _files
  fi
}

if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then
  _joinkit "$@"
else
  compdef _joinkit joinkit
fi
`;
}

/** The fish script: `joinkit completion fish > ~/.config/fish/completions/joinkit.fish`. */
export function fishScript(spec: CompletionSpec): string {
  const lines: string[] = [];
  const describe = (f: CompletionFlag) => (f.help ? ` -d ${fq(f.help)}` : "");
  const at = (cmd: string) => `-n ${fq(`__joinkit_at ${fq(cmd)}`)}`;
  const valueFlags = (c: CompletionCommand | undefined) =>
    [...(c?.flags ?? []), ...spec.globals].filter((f) => f.takesValue).flatMap(spellings);
  const switchRows = (rows: [string, string[]][]) =>
    rows.filter(([, w]) => w.length).map(([k, w]) =>
      `        case ${fq(k)}\n            printf '%s\\n' ${w.join(" ")}`
    );
  lines.push(
    `# fish completion for joinkit ${VERSION}, generated by 'joinkit completion fish'.`,
    `# Install: joinkit completion fish > ~/.config/fish/completions/joinkit.fish`,
    ``,
    `function __joinkit_value_flags`,
    `    switch $argv[1]`,
    ...switchRows(spec.commands.map((c) => [c.name, valueFlags(c)])),
    `        case '*'`,
    `            printf '%s\\n' ${valueFlags(undefined).join(" ")}`,
    `    end`,
    `end`,
    ``,
    `# The command words typed so far: "", a group ("token") or a command ("token list").`,
    `function __joinkit_cmd`,
    `    set -l words (commandline -opc)`,
    `    set -e words[1]`,
    `    set -l cmd ''`,
    `    set -l skip 0`,
    `    for w in $words`,
    `        if test $skip = 1`,
    `            set skip 0`,
    `            continue`,
    `        end`,
    `        switch $w`,
    `            case '-*=*'`,
    `            case '-*'`,
    `                if contains -- $w (__joinkit_value_flags "$cmd")`,
    `                    set skip 1`,
    `                end`,
    `            case '*'`,
    `                if test -z "$cmd"`,
    `                    set cmd $w`,
    `                else if contains -- $cmd ${Object.keys(spec.groups).join(" ")}`,
    `                    set cmd "$cmd $w"`,
    `                end`,
    `        end`,
    `    end`,
    `    echo $cmd`,
    `end`,
    ``,
    `function __joinkit_at`,
    `    set -l cmd (__joinkit_cmd)`,
    `    test "$cmd" = "$argv[1]"`,
    `end`,
    ``,
    `complete -c joinkit -f`,
  );
  for (const f of spec.globals) {
    lines.push(
      `complete -c joinkit${f.short ? ` -s ${f.short}` : ""} -l ${f.name}${
        f.takesValue ? " -x" : ""
      }${describe(f)}`,
    );
  }
  for (const w of spec.top) {
    lines.push(`complete -c joinkit ${at("")} -a ${fq(w)} -d ${fq(topSummary(spec, w))}`);
  }
  for (const c of spec.commands) {
    if (c.group) {
      lines.push(`complete -c joinkit ${at(c.group)} -a ${fq(subName(c))} -d ${fq(c.summary)}`);
    }
    for (const f of c.flags) {
      const value = !f.takesValue
        ? ""
        : f.choices
        ? ` -x -a ${fq(f.choices.join(" "))}`
        : f.kind === "dir"
        ? ` -x -a '(__fish_complete_directories)'`
        : f.kind === "file"
        ? " -r -F"
        : " -x";
      lines.push(
        `complete -c joinkit ${at(c.name)}${f.short ? ` -s ${f.short}` : ""} -l ${f.name}${value}${
          describe(f)
        }`,
      );
    }
    lines.push(
      c.args
        ? `complete -c joinkit ${at(c.name)} -a ${fq(c.args.join(" "))}`
        : `complete -c joinkit ${at(c.name)} -F`,
    );
  }
  return lines.join("\n") + "\n";
}

const MAKERS: Record<Shell, (spec: CompletionSpec) => string> = {
  bash: bashScript,
  zsh: zshScript,
  fish: fishScript,
};

export const command: Command = {
  name: "completion",
  options: {},
  argChoices: SHELLS,
  help: `Print a shell completion script for bash, zsh or fish.

The script completes command words, each command's flags and the values of
flags that take a file, a directory or one of fixed words. It is made from
joinkit's command table and flag definitions and runs no joinkit when it
completes; make it again after upgrading joinkit.

Usage:
  joinkit completion bash|zsh|fish

${EXIT_CODES}

Examples:
  source <(joinkit completion bash)                  # this bash session
  joinkit completion bash > /etc/bash_completion.d/joinkit
  joinkit completion zsh > "\${fpath[1]}/_joinkit"    # zsh (compinit loads it)
  joinkit completion fish > ~/.config/fish/completions/joinkit.fish
`,
  async run(ctx) {
    expectArgs(ctx, 1, 1, "the shell: bash, zsh or fish");
    const shell = ctx.args[0]!;
    if (!(SHELLS as readonly string[]).includes(shell)) {
      throw new UsageError(
        `unsupported shell ${JSON.stringify(shell)}: choose one of ${SHELLS.join(", ")}`,
      );
    }
    ctx.stdout(MAKERS[shell as Shell](await completionSpec()));
  },
};
