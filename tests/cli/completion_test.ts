/**
 * `joinkit completion`: the scripts are made from the command table and each
 * command's flags, and they work. The bash script is sourced in bash and
 * driven the way bash-completion's own tests drive a completion function:
 * find it with `complete -p`, set COMP_WORDS/COMP_CWORD/COMP_LINE/COMP_POINT,
 * call it, read COMPREPLY. fish is asked with `complete -C`; zsh's function
 * runs with stand-ins for compadd/_describe/_files (a real zsh completion
 * needs a terminal). zsh and fish tests are skipped where they are absent.
 */

import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { runCli, runInProcess, tempDir } from "../_cli.ts";
import { COMMANDS, GLOBAL_FLAGS, groupCommands, GROUPS, topWords } from "../../commands/_table.ts";
import { completionFlags } from "../../commands/completion.ts";

const NOW = "2026-11-22T00:00:00Z";

function has(shell: string): boolean {
  return spawnSync(shell, ["-c", "exit 0"]).status === 0;
}
const HAS_ZSH = has("zsh");
const HAS_FISH = has("fish");

const { dir, cleanup } = tempDir("joinkit-completion-");
globalThis.addEventListener("unload", cleanup);
fs.mkdirSync(path.join(dir, "sub"));
fs.writeFileSync(path.join(dir, "sfile"), "");
fs.writeFileSync(path.join(dir, "a b.pem"), "");

const scripts = new Map<string, string>();
/** The script `joinkit completion <shell>` prints (spawned: the binary under test), saved. */
async function script(shell: string): Promise<string> {
  const known = scripts.get(shell);
  if (known) return known;
  const r = await runCli(["completion", shell]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "");
  const file = path.join(dir, `joinkit.${shell}`);
  fs.writeFileSync(file, r.stdout);
  scripts.set(shell, file);
  return file;
}

/** What bash completes for the words typed (the last is the word under the cursor). */
function bashComplete(file: string, words: string[]): string[] {
  const out = execFileSync("bash", [
    "--norc",
    "--noprofile",
    "-c",
    `source "$1"; shift
fn=$(complete -p joinkit | sed -E 's/.*-F ([^ ]+) .*/\\1/')
COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=\${#COMP_LINE}
"$fn" joinkit "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"
for r in "\${COMPREPLY[@]}"; do printf '%s\\n' "$r"; done`,
    "_",
    file,
    ...words,
  ], { encoding: "utf8" });
  return out.split("\n").filter((l) => l !== "").sort();
}

/** The long flags a command's `joinkit <cmd> --<TAB>` must offer. */
async function longFlags(name: string): Promise<string[]> {
  const { command } = await COMMANDS.find((e) => e.name === name)!.load();
  return [
    ...completionFlags(name, command.options).map((f) => `--${f.name}`),
    ...GLOBAL_FLAGS.map((f) => `--${f.name}`),
  ].sort();
}

/** Each case: the words typed (cursor on the last), and the completions expected. */
async function cases(): Promise<[string[], string[]][]> {
  const caHash = await longFlags("ca hash");
  assert.ok(caHash.includes("--now") && caHash.includes("--help"), caHash.join(" "));
  return [
    [["joinkit", "to"], ["token"]],
    [["joinkit", "token", "c"], ["check", "create"]],
    [["joinkit", "ca", "hash", "--"], caHash],
    [["joinkit", ""], topWords().sort()],
    [["joinkit", "token", ""], groupCommands("token").map((e) => e.name.slice(6)).sort()],
    // global flags (and --now's value) before or between the command words are skipped
    [["joinkit", "--now", NOW, "token", "l"], ["list"]],
    [["joinkit", "token", "--now", NOW, "l"], ["list"]],
    [["joinkit", "-V", "c"], ["ca", "cert", "certs", "cluster-info", "completion", "csr"]],
    // a flag's value: a duration completes to nothing, then flags again
    [["joinkit", "token", "create", "--ttl", ""], []],
    [["joinkit", "token", "create", "--ttl", "1h", "--desc"], ["--description"]],
    // directories for a directory flag, files (names with spaces kept whole) for arguments
    [["joinkit", "init", "--out-dir", `${dir}/s`], [`${dir}/sub`]],
    [["joinkit", "ca", "hash", `${dir}/a`], [`${dir}/a b.pem`]],
    [["joinkit", "completion", ""], ["bash", "fish", "zsh"]],
  ];
}

Deno.test("CLI completion bash: sourced in bash, completes command words, flags and values", async () => {
  const file = await script("bash");
  const registered = execFileSync("bash", [
    "--norc",
    "-c",
    `source "$1"; complete -p joinkit`,
    "_",
    file,
  ], {
    encoding: "utf8",
  });
  assert.match(registered, /^complete -F _joinkit joinkit$/m);
  for (const [words, want] of await cases()) {
    assert.deepEqual(bashComplete(file, words), want, JSON.stringify(words));
  }
});

Deno.test("CLI completion bash: every command of the table completes, with exactly its flags", async () => {
  const file = await script("bash");
  for (const e of COMMANDS) {
    const words = e.name.split(" ");
    const last = words.pop()!;
    const got = bashComplete(file, ["joinkit", ...words, last.slice(0, -1)]);
    assert.ok(got.includes(last), `${e.name}: ${got.join(" ")}`);
    assert.deepEqual(
      bashComplete(file, ["joinkit", ...e.name.split(" "), "--"]),
      await longFlags(e.name),
      e.name,
    );
  }
});

Deno.test({
  name: "CLI completion fish: complete -C gives the same completions",
  ignore: !HAS_FISH,
  fn: async () => {
    const file = await script("fish");
    for (const [words, want] of await cases()) {
      // fish lists file and directory names with a trailing slash on directories
      const line = words.map((w) => w.replace(/ /g, "\\ ")).join(" ");
      const out = execFileSync("fish", [
        "--no-config",
        "-c",
        `source $argv[1]; complete -C $argv[2]`,
        file,
        line,
      ], {
        encoding: "utf8",
      });
      const got = out.split("\n").filter((l) => l !== "").map((l) =>
        l.split("\t")[0]!.replace(/\/$/, "")
      )
        .sort();
      assert.deepEqual(got, want, line);
    }
  },
});

Deno.test({
  name: "CLI completion zsh: the function offers the same words (compadd/_describe stand-ins)",
  ignore: !HAS_ZSH,
  fn: async () => {
    const file = await script("zsh");
    const harness = path.join(dir, "harness.zsh");
    // Real compadd/_describe filter by the prefix; the stand-ins print every candidate, and
    // the test filters them the same way. _files prints a marker naming its kind.
    fs.writeFileSync(
      harness,
      `compdef() { : }
compadd() { while [[ $1 == -* && $1 != -- ]]; do shift; done; [[ $1 == -- ]] && shift; print -rl -- "$@" }
_describe() { local -a arr; arr=("\${(@P)4}"); print -rl -- "\${arr[@]%%:*}" }
_files() { print -r -- "<files$*>" }
source "$1"; shift
words=("$@"); CURRENT=$#
_joinkit
`,
    );
    for (const [words, want] of await cases()) {
      const cur = words.at(-1)!;
      const out = execFileSync("zsh", ["-f", harness, file, ...words], { encoding: "utf8" });
      const lines = out.split("\n").filter((l) => l !== "");
      const marker = lines.find((l) => l.startsWith("<files"));
      if (marker !== undefined) {
        // file names come from zsh's own _files: check only which kind was asked for
        assert.equal(
          marker,
          words.includes("--out-dir") ? "<files-/>" : "<files>",
          words.join(" "),
        );
        continue;
      }
      assert.deepEqual(lines.filter((g) => g.startsWith(cur)).sort(), want, words.join(" "));
    }
  },
});

Deno.test("completion: the scripts name every command of the table and parse in their shell", async () => {
  for (const shell of ["bash", "zsh", "fish"]) {
    const r = await runInProcess(["completion", shell]);
    assert.equal(r.code, 0, r.stderr);
    for (const e of COMMANDS) {
      assert.ok(r.stdout.includes(e.name.split(" ").at(-1)!), `${shell} ${e.name}`);
    }
    for (const g of Object.keys(GROUPS)) assert.ok(r.stdout.includes(g), `${shell} ${g}`);
    if (shell === "bash" || (shell === "zsh" && HAS_ZSH) || (shell === "fish" && HAS_FISH)) {
      const file = path.join(dir, `syntax.${shell}`);
      fs.writeFileSync(file, r.stdout);
      const check = spawnSync(shell, ["-n", file], { encoding: "utf8" });
      assert.equal(check.status, 0, `${shell} -n: ${check.stderr}`);
    }
  }
  assert.deepEqual(await runInProcess(["completion"]), {
    code: 2,
    stdout: "",
    stderr: "error: missing argument: the shell: bash, zsh or fish\n",
    thrown: (await runInProcess(["completion"])).thrown,
  });
});

Deno.test("completionFlags() offers a command's flags but not the old names it still accepts", () => {
  const flags = completionFlags("cert verify", {
    ca: { type: "string" },
    at: { type: "string" }, // the vocabulary's old name of --now for cert verify
    output: { type: "string", short: "o" },
    force: { type: "boolean" },
  });
  assert.deepEqual(flags.map((f) => f.name), ["ca", "output", "force"]);
  assert.deepEqual(flags.map((f) => [f.takesValue, f.kind]), [[true, "file"], [true, "none"], [
    false,
    "none",
  ]]);
  assert.equal(flags[1]!.short, "o");
});
