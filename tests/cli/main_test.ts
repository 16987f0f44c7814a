import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { runCli, runInProcess, tempDir } from "../_cli.ts";
import { VERSION } from "../../lib/base/version.ts";
import { editDistance, globalHelp, type Io, reportInternalError, run, suggest } from "../../cli.ts";
import { COMMANDS, GLOBAL_FLAGS, groupCommands, GROUPS, topWords } from "../../commands/_table.ts";

const NOW = "2026-11-22T00:00:00Z";
const TOKEN = "abcdef.0123456789abcdef";

/** The command names a help text lists under "Commands:". */
function listedCommands(help: string): string[] {
  const section = help.split("Commands:\n")[1]!.split("\n\n")[0]!;
  return section.split("\n").map((l) => l.trim().split(/\s{2,}/)[0]!);
}

Deno.test("CLI --version prints the package version", async () => {
  const pkg = JSON.parse(fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
  assert.equal(VERSION, pkg.version);
  const r = await runCli(["--version"]);
  assert.deepEqual(r, { code: 0, stdout: `joinkit ${VERSION}\n`, stderr: "" });
});

Deno.test("CLI --help lists every command and the exit codes", async () => {
  const r = await runCli(["--help"]);
  assert.equal(r.code, 0);
  assert.equal(r.stderr, "");
  for (const cmd of ["token generate", "ca hash", "cluster-info verify", "csr sign", "init"]) {
    assert.ok(r.stdout.includes(cmd), cmd);
  }
  assert.match(r.stdout, /3 {2}a check ran and said no/);
});

Deno.test("CLI usage errors exit 2 with one line on stderr", async () => {
  const cases: [string[], RegExp][] = [
    [[], /joinkit/],
    [["frobnicate"], /^error: unknown command "frobnicate"/],
    [["token"], /^error: 'joinkit token' needs a command/],
    [["token", "frob"], /^error: unknown command 'joinkit token frob'/],
    [["token", "generate", "--nope"], /^error: unknown flag --nope/],
    [["token", "generate", "--count"], /^error: flag --count needs a value/],
  ];
  for (const [args, re] of cases) {
    const r = await runCli(args);
    assert.equal(r.code, 2, args.join(" "));
    assert.equal(r.stdout, "");
    assert.match(r.stderr, re);
  }
});

// Issue 10's contract: a malformed flag value is a usage error (2), --now included (it was 1).
Deno.test("CLI --now refuses what Go's time.Parse(time.RFC3339) refuses, with Go's reason", async () => {
  const r = await runCli(["token", "generate", "--now", "tomorrow"]);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, "");
  assert.equal(
    r.stderr,
    'error: invalid --now "tomorrow": parsing time "tomorrow" as "2006-01-02T15:04:05Z07:00": cannot parse "tomorrow" as "2006"\n',
  );
  const nl = await runCli(["token", "generate", "--now", "2030-01-01T00:00:00Z\nerror: fake"]);
  assert.equal(nl.code, 2);
  assert.equal(nl.stderr.split("\n").length, 2, nl.stderr);
  // Go's fallback parser takes a one-digit hour and a zone offset of 24 hours
  const lax = await runCli(["token", "generate", "--now", "2030-01-01T5:00:00+24:00"]);
  assert.equal(lax.code, 0, lax.stderr);
});

Deno.test("CLI with no arguments prints the help on stderr, exit 2", async () => {
  const r = await runCli([]);
  const help = await runCli(["--help"]);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, "");
  assert.equal(r.stderr, help.stdout);
});

Deno.test("CLI group --help lists the group's commands", async () => {
  const r = await runCli(["csr", "--help"]);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /csr create[\s\S]*csr inspect[\s\S]*csr sign/);
});

Deno.test("CLI did you mean, -V and global flags before the command, as the binary runs them", async () => {
  const tokn = await runCli(["tokn", "list"]);
  assert.deepEqual(tokn, {
    code: 2,
    stdout: "",
    stderr: 'error: unknown command "tokn": did you mean "token"?\n',
  });
  const tll = await runCli(["token", "create", TOKEN, "--tll", "1h"]);
  assert.deepEqual(tll, {
    code: 2,
    stdout: "",
    stderr: "error: unknown flag --tll: did you mean --ttl?\n",
  });
  assert.deepEqual(await runCli(["-V"]), { code: 0, stdout: `joinkit ${VERSION}\n`, stderr: "" });
  const create = ["create", TOKEN, "--string-data", "-o", "json"];
  const before = await runCli(["--now", NOW, "token", ...create]);
  const after = await runCli(["token", ...create, "--now", NOW]);
  assert.equal(before.code, 0, before.stderr);
  assert.equal(before.stdout, after.stdout);
  assert.ok(before.stdout.includes("2026-11-23T00:00:00Z"), before.stdout);
});

// In process: run() itself, as main.ts and the fuzzers call it.

Deno.test("run() maps every outcome to its exit code and at most one stderr line per problem", async () => {
  const cases: [string[], number, RegExp | string][] = [
    [["--version"], 0, ""],
    [["token", "generate", "--count", "2"], 0, ""],
    [["frobnicate"], 2, `error: unknown command "frobnicate": see 'joinkit --help'`],
    [["token"], 2, "error: 'joinkit token' needs a command: see 'joinkit token --help'"],
    [["token", "generate", "extra"], 2, /^error: unexpected argument "extra"/],
    [["token", "generate", "--count", "x"], 2, /^error: .*--count/],
    [["token", "generate", "--now", "soon"], 2, /^error: invalid --now "soon"/],
    [["--now"], 2, "error: flag --now needs a value"],
    [["--bogus", "token", "list"], 2, "error: unknown flag --bogus (see 'joinkit --help')"],
    [
      ["token", "generate", "-Z"],
      2,
      /^error: unknown flag -Z \(see 'joinkit token generate --help'\)$/,
    ],
    [["ca", "hash", "/nonexistent/ca.crt"], 1, /^error: \/nonexistent\/ca\.crt: no such file/],
    [["token", "check", "abcdef.0000000000000000", "--secrets", "/dev/null", "--now", NOW], 3, /./],
    [["completion", "tcsh"], 2, /^error: unsupported shell "tcsh"/],
  ];
  for (const [argv, code, err] of cases) {
    const r = await runInProcess(argv);
    const what = argv.join(" ");
    assert.equal(r.code, code, `${what}: ${r.stderr}`);
    if (code === 0) assert.equal(r.stderr, "", what);
    else {
      if (code !== 3) assert.equal(r.stdout, "", what);
      const lines = r.stderr.split("\n");
      assert.equal(lines.pop(), "", what);
      assert.ok(lines.length >= 1 && lines.every((l) => l.length > 0), `${what}: ${r.stderr}`);
      const last = lines.at(-1)!;
      if (typeof err === "string") assert.equal(last, err, what);
      else assert.match(last, err, what);
    }
  }
});

Deno.test("run() hands io.stderr rendered lines: one call, one line, whatever an input holds", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const evil = path.join(dir, "a\nerror: fake\r");
    fs.writeFileSync(evil, "not a certificate\n");
    const calls: string[] = [];
    const code = await run(["ca", "hash", evil, path.join(dir, `x ${TOKEN}`)], {
      stdout: () => {},
      stderr: (line) => void calls.push(line),
    });
    assert.equal(code, 1);
    assert.equal(calls.length, 1, calls.join("|"));
    assert.ok(!/[\n\r]/.test(calls[0]!), calls[0]);
    assert.ok(calls[0]!.includes("\\nerror: fake\\r"), calls[0]);
  } finally {
    cleanup();
  }
});

Deno.test("run() did you mean: close command words and flags, nothing for far ones", async () => {
  const cases: [string[], string][] = [
    [["tokn", "list"], `error: unknown command "tokn": did you mean "token"?`],
    [["tkoen"], `error: unknown command "tkoen": did you mean "token"?`],
    [["joincommand"], `error: unknown command "joincommand": did you mean "join-command"?`],
    [["clust"], `error: unknown command "clust": did you mean "cluster-info"?`],
    [
      ["token", "lsit"],
      "error: unknown command 'joinkit token lsit': did you mean 'joinkit token list'?",
    ],
    [
      ["ca", "pin"],
      "error: unknown command 'joinkit ca pin': did you mean 'joinkit ca pin-check'?",
    ],
    [
      ["kubeconfig", "bootstrp"],
      "error: unknown command 'joinkit kubeconfig bootstrp': did you mean 'joinkit kubeconfig bootstrap'?",
    ],
    [["token", "create", TOKEN, "--tll", "1h"], "error: unknown flag --tll: did you mean --ttl?"],
    [["token", "create", TOKEN, "--tll=1h"], "error: unknown flag --tll: did you mean --ttl?"],
    [["token", "generate", "--cuont", "2"], "error: unknown flag --cuont: did you mean --count?"],
    [["--verison"], "error: unknown flag --verison: did you mean --version?"],
    [["token", "list", "--nwo", NOW], "error: unknown flag --nwo: did you mean --now?"],
    // far from everything: no guess, the usual pointer to help
    [["xyz"], `error: unknown command "xyz": see 'joinkit --help'`],
    [
      ["token", "frobnicate"],
      "error: unknown command 'joinkit token frobnicate': see 'joinkit token --help'",
    ],
    [
      ["token", "generate", "--nope"],
      "error: unknown flag --nope (see 'joinkit token generate --help')",
    ],
  ];
  for (const [argv, line] of cases) {
    const r = await runInProcess(argv);
    assert.deepEqual(
      r,
      { code: 2, stdout: "", stderr: line + "\n", thrown: r.thrown },
      argv.join(" "),
    );
  }
});

Deno.test("suggest() takes the one closest candidate within the typo limit, else a unique prefix", () => {
  const words = ["token", "ca", "cert", "csr", "cluster-info", "init", "rbac"];
  const cases: [string, string | undefined][] = [
    ["tokn", "token"],
    ["tokne", "token"], // transposition counts 1
    ["TOKEN", "token"],
    ["c", "ca"], // one letter allows one edit: only "ca" is that close
    ["cs", undefined], // one edit from both "ca" and "csr": a tie gives no guess
    ["clus", "cluster-info"], // far from all, but the prefix of one
    ["rbca", "rbac"],
    ["nope", undefined], // 4 letters allow 1 edit
    ["", undefined],
    ["x".repeat(200), undefined],
  ];
  for (const [word, want] of cases) assert.equal(suggest(word, words), want, JSON.stringify(word));
  assert.equal(editDistance("tokn", "token"), 1);
  assert.equal(editDistance("tll", "ttl"), 1);
  assert.equal(editDistance("ab", "ba"), 1);
  assert.equal(editDistance("", "abc"), 3);
  assert.equal(editDistance("kitten", "sitting"), 3);
});

Deno.test("run() -V and --version anywhere print the version; help and version words", async () => {
  for (
    const argv of [
      ["-V"],
      ["--version"],
      ["version"],
      ["-V", "token", "list"],
      ["token", "list", "-V"],
      ["token", "list", "--version"],
      ["ca", "-V", "hash"],
    ]
  ) {
    assert.deepEqual(
      await runInProcess(argv),
      { code: 0, stdout: `joinkit ${VERSION}\n`, stderr: "" },
      argv.join(" "),
    );
  }
  const help = await runInProcess(["help"]);
  assert.deepEqual(help, { code: 0, stdout: globalHelp(), stderr: "" });
  const viaWord = await runInProcess(["help", "token", "list"]);
  const viaFlag = await runInProcess(["token", "list", "--help"]);
  assert.equal(viaWord.code, 0);
  assert.equal(viaWord.stdout, viaFlag.stdout);
  assert.match(viaFlag.stdout, /joinkit token list/);
});

Deno.test("run() takes the global flags before, between or after the command words", async () => {
  const create = ["create", TOKEN, "--ttl", "1h", "--string-data", "-o", "json"];
  const forms = [
    ["--now", NOW, "token", ...create],
    [`--now=${NOW}`, "token", ...create],
    ["token", "--now", NOW, ...create],
    ["token", ...create, "--now", NOW],
    ["token", ...create, `--now=${NOW}`],
    // after wins over before, as a repeated flag's last value does
    ["--now", "2000-01-01T00:00:00Z", "token", ...create, "--now", NOW],
  ];
  const outs = [];
  for (const argv of forms) {
    const r = await runInProcess(argv);
    assert.equal(r.code, 0, `${argv.join(" ")}: ${r.stderr}`);
    outs.push(r.stdout);
  }
  assert.ok(outs[0]!.includes("2026-11-22T01:00:00Z"), outs[0]);
  for (const o of outs) assert.equal(o, outs[0]);
  // --help before the command is the command's help, as after it
  for (
    const argv of [["--help", "token", "list"], ["-h", "token", "list"], ["token", "-h", "list"]]
  ) {
    assert.deepEqual(await runInProcess(argv), await runInProcess(["token", "list", "--help"]));
  }
  assert.deepEqual(
    await runInProcess(["--help", "token"]),
    await runInProcess(["token", "--help"]),
  );
  assert.deepEqual(await runInProcess(["-h"]), { code: 0, stdout: globalHelp(), stderr: "" });
  // the clock io gives is the default; --now overrides it
  const clock = () => new Date("2030-05-05T00:00:00Z");
  const atClock = await runInProcess(["token", ...create], { clock });
  assert.ok(atClock.stdout.includes("2030-05-05T01:00:00Z"), atClock.stdout);
  const atNow = await runInProcess(["--now", NOW, "token", ...create], { clock });
  assert.equal(atNow.stdout, outs[0]);
});

Deno.test("run() help: the global list and each group's list are exactly the command table's", async () => {
  assert.deepEqual(listedCommands(globalHelp()), COMMANDS.map((e) => e.name));
  assert.match(globalHelp(), /-V, --version/);
  for (const f of GLOBAL_FLAGS) assert.ok(globalHelp().includes(`--${f.name}`), f.name);
  const groups = Object.keys(GROUPS);
  assert.deepEqual(topWords(), [...new Set(COMMANDS.map((e) => e.name.split(" ")[0]!))]);
  for (const group of groups) {
    const r = await runInProcess([group, "--help"]);
    assert.equal(r.code, 0, group);
    assert.deepEqual(listedCommands(r.stdout), groupCommands(group).map((e) => e.name), group);
    assert.ok(groupCommands(group).length > 0, group);
  }
  // every two-word command sits in a declared group, and only those
  for (const e of COMMANDS) {
    const words = e.name.split(" ");
    assert.equal(e.group, words.length === 2 ? words[0] : undefined, e.name);
    if (e.group) assert.ok(GROUPS[e.group], e.name);
  }
});

Deno.test("run() command table: every entry loads the command it names, with help and options", async () => {
  for (const e of COMMANDS) {
    const { command } = await e.load();
    assert.equal(command.name, e.name);
    assert.ok(command.help.includes(`joinkit ${e.name}`), `${e.name}: help shows its usage`);
    assert.equal(typeof command.options, "object", e.name);
    for (const g of ["now", "help"]) {
      assert.ok(!(g in command.options), `${e.name} must not define the global --${g}`);
    }
  }
});

Deno.test("run() reports an error that is no JoinkitError as one internal-error line, exit 1", async () => {
  const lines: string[] = [];
  let seen: unknown;
  const io: Io = {
    stdout: () => {},
    stderr: (l) => void lines.push(l),
    clock: () => {
      throw new TypeError("clock broke\nerror: fake");
    },
    onError: (e) => void (seen = e),
  };
  assert.equal(await run(["token", "generate"], io), 1);
  assert.deepEqual(lines, ["error: internal error: clock broke\\nerror: fake"]);
  assert.ok(seen instanceof TypeError);
  // With JOINKIT_DEBUG the stack follows, still one line per call.
  const debug: string[] = [];
  reportInternalError(new Error("boom"), {
    stdout: () => {},
    stderr: (l) => void debug.push(l),
    env: { JOINKIT_DEBUG: "1" },
  });
  assert.equal(debug[0], "error: internal error: boom");
  assert.ok(debug.length > 2, debug.join("\n"));
  assert.ok(debug.every((l) => !l.includes("\n")));
  // Without it, nothing more.
  const quiet: string[] = [];
  reportInternalError(new Error("boom"), { stdout: () => {}, stderr: (l) => void quiet.push(l) });
  assert.deepEqual(quiet, ["error: internal error: boom"]);
});

Deno.test("run() with no arguments writes the global help to stderr, line by line, exit 2", async () => {
  const lines: string[] = [];
  const code = await run([], {
    stdout: () => assert.fail("stdout"),
    stderr: (l) => void lines.push(l),
  });
  assert.equal(code, 2);
  assert.equal(lines.join("\n") + "\n", globalHelp());
});
