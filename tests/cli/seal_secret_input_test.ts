import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { repoPath, runCli, runInProcess, tempDir } from "../_cli.ts";
import { COMMANDS } from "../../commands/_table.ts";
import { readSecretFile, readTokenFile, SECRET_FILE_FLAGS } from "../../commands/_secret_input.ts";

const TOKEN = "abcdef.0123456789abcdef";
const KEY = "e6a2eb8581237ab72a4f494f30285ec12a9694d750b9785706a83bfcbbbd2204";
const CA = repoPath("tests/fixtures/upload_certs/pki/ca.crt");
const SERVER = ["--server", "10.0.0.1:6443"];

const root = tempDir("joinkit-secret-input-");
globalThis.addEventListener("unload", root.cleanup);
let n = 0;

/** A file holding `text` with `mode`. */
function secretFile(text: string, mode = 0o600): string {
  const f = path.join(root.dir, `s${n++}`);
  fs.writeFileSync(f, text);
  fs.chmodSync(f, mode);
  return f;
}

Deno.test("readSecretFile()/readTokenFile(): mode & 077 refused as ssh does, one token only, content never in errors", () => {
  assert.equal(readTokenFile(secretFile(`${TOKEN}\n`), "token-file"), TOKEN);
  assert.equal(readTokenFile(secretFile(`  ${TOKEN}\r\n\n`, 0o400), "token-file"), TOKEN);
  assert.equal(readSecretFile(secretFile(KEY), "certificate-key-file"), KEY);
  for (const mode of [0o644, 0o640, 0o604, 0o660, 0o602, 0o620]) {
    const f = secretFile(TOKEN, mode);
    assert.throws(() => readTokenFile(f, "token-file"), (e: Error) => {
      assert.equal(
        e.message,
        `${f}: permissions ${
          mode.toString(8).padStart(4, "0")
        } are too open: a --token-file file must not be accessible by group or others (chmod 600 ${f})`,
      );
      return true;
    });
  }
  const two = secretFile(`${TOKEN}\nbcdefa.0123456789abcdef\n`);
  assert.throws(() => readTokenFile(two, "token-file"), (e: Error) => {
    assert.equal(e.message, `${two}: holds 2 values; --token-file takes exactly one token`);
    assert.ok(!e.message.includes("0123456789abcdef"));
    return true;
  });
  assert.throws(
    () => readTokenFile(secretFile("\n \n"), "token-file"),
    /empty, no secret for --token-file/,
  );
  assert.throws(() => readTokenFile(path.join(root.dir, "missing"), "token-file"), /no such file/);
  assert.deepEqual(SECRET_FILE_FLAGS, {
    token: "token-file",
    "certificate-key": "certificate-key-file",
    "tls-bootstrap-token": "tls-bootstrap-token-file",
  });
});

Deno.test("run() every command with a secret flag also takes its file form, shown in its help", async () => {
  let seen = 0;
  for (const e of COMMANDS) {
    const { command } = await e.load();
    for (const [flag, fileFlag] of Object.entries(SECRET_FILE_FLAGS)) {
      if (!(flag in command.options)) continue;
      seen++;
      assert.ok(fileFlag in command.options, `${e.name}: --${flag} without --${fileFlag}`);
      assert.ok(command.help.includes(`--${fileFlag} FILE|-`), `${e.name} help`);
    }
  }
  assert.ok(seen >= 8, `only ${seen} secret flags found`);
});

Deno.test("run() --token-file and --certificate-key-file give what --token and --certificate-key give", async () => {
  const base = ["join-command", ...SERVER, "--ca", CA, "--control-plane"];
  const byFlag = await runInProcess([...base, "--token", TOKEN, "--certificate-key", KEY]);
  assert.equal(byFlag.code, 0, byFlag.stderr);
  const byFile = await runInProcess([
    ...base,
    "--token-file",
    secretFile(`${TOKEN}\n`),
    "--certificate-key-file",
    secretFile(`${KEY}\n`),
  ]);
  assert.equal(byFile.code, 0, byFile.stderr);
  assert.equal(byFile.stdout, byFlag.stdout);
  // token create takes the positional TOKEN from a file too
  const tc = await runInProcess([
    "token",
    "create",
    "--token-file",
    secretFile(TOKEN),
    "--now",
    "2026-01-01T00:00:00Z",
  ]);
  const tcArg = await runInProcess(["token", "create", TOKEN, "--now", "2026-01-01T00:00:00Z"]);
  assert.equal(tc.code, 0, tc.stderr);
  assert.equal(tc.stdout, tcArg.stdout);
});

Deno.test("CLI --token-file refusals: open mode and two tokens exit 1, both forms exit 2; one line, no secret, nothing written", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const out = path.join(dir, "out");
    const rows: [string[], number, RegExp][] = [
      [["--token-file", secretFile(TOKEN, 0o644)], 1, /permissions 0644 are too open/],
      [
        ["--token-file", secretFile(`${TOKEN} ${TOKEN}`)],
        1,
        /holds 2 values; --token-file takes exactly one token/,
      ],
      [
        ["--token", TOKEN, "--token-file", secretFile(TOKEN)],
        2,
        /--token and --token-file: give one/,
      ],
    ];
    for (const [flags, code, want] of rows) {
      const r = await runCli([
        "init",
        ...SERVER,
        "--ca",
        CA,
        ...flags,
        "--out-dir",
        out,
        "--now",
        "2026-01-01T00:00:00Z",
      ]);
      assert.equal(r.code, code, r.stderr);
      assert.match(r.stderr, want);
      assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
      assert.ok(!r.stderr.includes("0123456789abcdef"));
      assert.ok(!fs.existsSync(out));
    }
    // stdin
    const r = await runCli(["join-command", ...SERVER, "--ca", CA, "--token-file", "-"], {
      stdin: `${TOKEN}\n`,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /--token abcdef\.0123456789abcdef/);
  } finally {
    cleanup();
  }
});

Deno.test("CLI two secret file flags both '-': exit 2 naming both, stdin not read as the wrong secret", async () => {
  // stdin is read once: before, the second reader got nothing ("stdin: empty") or the first
  // secret's text was parsed as the other secret ("invalid --token" for a certificate key).
  const base = ["join-command", ...SERVER, "--ca", CA, "--control-plane"];
  const rows: [string[], string][] = [
    [
      ["--token-file", "-", "--certificate-key-file", "-"],
      "--token-file and --certificate-key-file both read stdin (-): give one a file",
    ],
    [
      ["--certificate-key-file", "-", "--token-file", "-"],
      "--token-file and --certificate-key-file both read stdin (-): give one a file",
    ],
  ];
  for (const [flags, want] of rows) {
    for (const stdin of [`${TOKEN}\n`, `${KEY}\n`]) {
      const r = await runCli([...base, ...flags], { stdin });
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stderr, `error: ${want}\n`);
      assert.equal(r.stdout, "");
    }
  }
  // join-config: --token-file and --tls-bootstrap-token-file
  const r = await runCli(
    ["join-config", ...SERVER, "--ca", CA, "--token-file", "-", "--tls-bootstrap-token-file", "-"],
    { stdin: `${TOKEN}\n` },
  );
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /^error: --token-file and --tls-bootstrap-token-file both read stdin \(-\)/,
  );
  assert.ok(!r.stderr.includes("0123456789abcdef"));
  // one '-' and one file is fine
  const ok = await runCli(
    [...base, "--token-file", "-", "--certificate-key-file", secretFile(KEY)],
    {
      stdin: `${TOKEN}\n`,
    },
  );
  assert.equal(ok.code, 0, ok.stderr);
});

Deno.test("CLI --seal-cert - next to a secret file flag '-': exit 2 naming both, nothing read as the wrong input", async () => {
  const cert = fs.readFileSync(repoPath("tests/fixtures/gitops/controller-2048.crt"), "utf8");
  const rows: [string[], string][] = [
    [
      ["token", "create", "--seal-cert", "-", "--token-file", "-", "--now", "2026-01-01T00:00:00Z"],
      "--token-file and --seal-cert",
    ],
    [
      [
        "upload-certs",
        "--pki-dir",
        repoPath("tests/fixtures/upload_certs/pki"),
        "--seal-cert",
        "-",
        "--certificate-key-file",
        "-",
      ],
      "--certificate-key-file and --seal-cert",
    ],
    [[
      "init",
      ...SERVER.map((s, i) => i === 1 ? `https://${s}` : s),
      "--ca",
      CA,
      "--token-file",
      "-",
      "--seal-cert",
      "-",
    ], "--token-file and --seal-cert"],
  ];
  for (const [argv, both] of rows) {
    const r = await runCli(argv, { stdin: `${cert}${TOKEN}\n` });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, `error: ${both} both read stdin (-): give one a file\n`);
    assert.equal(r.stdout, "");
  }
});

Deno.test("CLI --certificate-key-file holding two values: exit 1 naming the file, no part of it echoed", async () => {
  // Before, the whole text went to the hex decoder: "invalid byte: U+000A" (exit 2), and a
  // stray first character of a second secret could be quoted ("invalid byte: U+0053 'S'").
  for (const text of [`${KEY}\nSECONDSECRET\n`, `${KEY} ${KEY}\n`]) {
    const f = secretFile(text);
    const r = await runCli([
      "join-command",
      ...SERVER,
      "--ca",
      CA,
      "--token",
      TOKEN,
      "--control-plane",
      "--certificate-key-file",
      f,
    ]);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(
      r.stderr,
      `error: ${f}: holds 2 values; --certificate-key-file takes exactly one key\n`,
    );
    assert.equal(r.stdout, "");
  }
});

Deno.test("CLI token check --token-file FILE|-: the same verdict as TOKEN, mode-checked, never both, no secret on stderr", async () => {
  const { dir, cleanup } = tempDir();
  try {
    const now = ["--now", "2026-01-01T00:00:00Z"];
    const created = await runCli(["token", "create", TOKEN, ...now]);
    assert.equal(created.code, 0, created.stderr);
    const secrets = path.join(dir, "secrets.yaml");
    fs.writeFileSync(secrets, created.stdout);
    const byArg = await runCli(["token", "check", TOKEN, "--secrets", secrets, ...now]);
    assert.equal(byArg.code, 0, byArg.stderr);
    const byFile = await runCli([
      "token",
      "check",
      "--token-file",
      secretFile(`${TOKEN}\r\n`),
      "--secrets",
      secrets,
      ...now,
    ]);
    assert.equal(byFile.code, 0, byFile.stderr);
    assert.equal(byFile.stdout, byArg.stdout);
    const byStdin = await runCli(
      ["token", "check", "--token-file", "-", "--secrets", secrets, ...now],
      { stdin: `${TOKEN}\n` },
    );
    assert.equal(byStdin.code, 0, byStdin.stderr);
    assert.equal(byStdin.stdout, byArg.stdout);
    // a wrong secret from a file: rejected (exit 3), the secret not echoed
    const wrong = await runCli([
      "token",
      "check",
      "--token-file",
      secretFile("abcdef.ffffffffffffffff\n"),
      "--secrets",
      secrets,
      ...now,
    ]);
    assert.equal(wrong.code, 3, wrong.stderr);
    assert.ok(!/ffffffffffffffff|0123456789abcdef/.test(wrong.stderr), wrong.stderr);
    const rows: [string[], number, RegExp][] = [
      [["--token-file", secretFile(TOKEN, 0o644)], 1, /permissions 0644 are too open/],
      [["--token-file", secretFile(`${TOKEN}\n${TOKEN}\n`)], 1, /holds 2 values/],
      [[TOKEN, "--token-file", secretFile(TOKEN)], 2, /TOKEN and --token-file: give one/],
      [["--token-file", "-", "--secrets", "-"], 2, /--token-file and --secrets cannot both be '-'/],
    ];
    for (const [flags, code, want] of rows) {
      const r = await runCli(["token", "check", ...flags, "--secrets", secrets, ...now], {
        stdin: `${TOKEN}\n`,
      });
      assert.equal(r.code, code, r.stderr);
      assert.match(r.stderr, want);
      assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
      assert.ok(!r.stderr.includes("0123456789abcdef"), r.stderr);
      assert.equal(r.stdout, "");
    }
  } finally {
    cleanup();
  }
});
