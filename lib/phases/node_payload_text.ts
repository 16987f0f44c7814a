/**
 * The text rules that keep a node payload inert: what a value may look like
 * where it lands in a `#cloud-config` (a YAML 1.1 document read by PyYAML),
 * in a JoinConfiguration kubeadm reads (go-yaml, also YAML 1.1), and in a
 * shell command line (`runcmd`, `/etc/kubeadm.sh`).
 *
 * YAML 1.1 readers differ from YAML 1.2 ones (the `yaml` and `js-yaml`
 * packages) in one way that matters here: U+0085, U+2028 and U+2029 are
 * line breaks, so one of them inside a quoted scalar is folded into a space
 * and inside a block scalar it ends the line or stops the reader (PyYAML:
 * "unacceptable character"). C0 and C1 controls, DEL and unpaired
 * surrogates stop both PyYAML and go-yaml ("control characters are not
 * allowed"). Such characters may reach a payload only escaped. (The
 * JoinConfiguration itself is written by `toYaml` exactly as go-yaml writes
 * it, escapes included, and go-yaml reads that back unchanged.)
 *
 * @module
 */

/**
 * The characters PyYAML and go-yaml read back as written in a block scalar
 * or a plain line: tab, newline, printable ASCII, and non-ASCII printable
 * BMP and astral characters, without U+0085, U+2028, U+2029 (YAML 1.1 line
 * breaks), U+FEFF (a byte-order mark) and U+FFFE/U+FFFF.
 */
const YAML11_SAFE =
  /^(?:[\t\n\x20-\x7e\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]|[\ud800-\udbff][\udc00-\udfff])*$/;

/** One character outside {@link YAML11_SAFE} (a surrogate pair counts as one). */
const YAML11_UNSAFE_CHAR =
  /[^\t\n\x20-\x7e\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\ud800-\udfff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The first character of `text` that a YAML 1.1 reader (cloud-init's
 * PyYAML, kubeadm's go-yaml) would not read back as written when it stands
 * unescaped in a YAML document, as `U+XXXX`; undefined when there is none.
 *
 * @example
 * ```ts
 * yaml11UnsafeChar("a\u2028b"); // "U+2028"
 * yaml11UnsafeChar("kubelet é"); // undefined
 * ```
 */
export function yaml11UnsafeChar(text: string): string | undefined {
  if (YAML11_SAFE.test(text)) return undefined;
  const m = YAML11_UNSAFE_CHAR.exec(text);
  if (!m) return undefined;
  return "U+" + m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
}

/**
 * Whether `content` survives CABPK's `content: |` block (indented six
 * spaces) byte for byte through a YAML 1.1 reader: only safe characters, a
 * first line that is neither empty nor led by a space (the block's
 * indentation is taken from it), exactly one final newline after a line
 * that is not blank (clip chomping drops trailing blank lines and adds a
 * missing newline), or no content at all.
 *
 * @example
 * ```ts
 * blockScalarSafe("apiVersion: v1\n"); // true
 * blockScalarSafe("no newline"); // false: the reader would add one
 * ```
 */
export function blockScalarSafe(content: string): boolean {
  if (content === "") return true;
  if (content[0] === " " || content[0] === "\n") return false;
  if (!content.endsWith("\n") || content.endsWith("\n\n")) return false;
  const lastLine = content.slice(content.lastIndexOf("\n", content.length - 2) + 1, -1);
  if (!/[^ \t]/.test(lastLine)) return false;
  return YAML11_SAFE.test(content);
}

/** A plain YAML scalar that every reader takes as this very string (an absolute path). */
const PLAIN_PATH = /^\/[A-Za-z0-9._/+@=,~-]*$/;

/**
 * `text` as one YAML scalar for a `path:` or a `runcmd` line: plain when it
 * is a simple absolute path, else double-quoted with every character
 * outside printable ASCII escaped (`\x..`, `\u....`, `\U........`: escapes
 * PyYAML and go-yaml both read), so no reader folds, drops or stops at it.
 *
 * @example
 * ```ts
 * yamlScalar("/etc/kubernetes/discovery.conf"); // "/etc/kubernetes/discovery.conf"
 * yamlScalar("/etc/a #b"); // '"/etc/a #b"'
 * ```
 */
export function yamlScalar(text: string): string {
  if (PLAIN_PATH.test(text)) return text;
  return yamlDoubleQuoted(text);
}

/**
 * A YAML double-quoted scalar of `text` whose bytes are printable ASCII
 * only (see {@link yamlScalar}).
 *
 * @example
 * ```ts
 * yamlDoubleQuoted('a"\n\u2028'); // '"a\\"\\n\\u2028"'
 * ```
 */
export function yamlDoubleQuoted(text: string): string {
  let out = '"';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (ch === '"' || ch === "\\") out += "\\" + ch;
    else if (cp >= 0x20 && cp <= 0x7e) out += ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (cp <= 0xff) out += "\\x" + hex(cp, 2);
    else if (cp <= 0xffff) out += "\\u" + hex(cp, 4);
    else out += "\\U" + hex(cp, 8);
  }
  return out + '"';
}

const hex = (n: number, width: number) => n.toString(16).toUpperCase().padStart(width, "0");

/** A shell word that needs no quoting in POSIX sh (and means the same in bash). */
const SHELL_BARE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * `word` as exactly one POSIX shell word: unchanged when it holds only
 * characters no shell treats specially, else single-quoted with each `'`
 * written as `'"'"'`. Inside single quotes nothing is special to sh or
 * bash: no `$( )`, backticks, globs, `;` or newlines. A NUL cannot be in an
 * argument at all, so it is refused.
 *
 * @example
 * ```ts
 * shellQuote("/run/kubeadm/kubeadm-join-config.yaml"); // unchanged
 * shellQuote("$(reboot)"); // "'$(reboot)'"
 * ```
 */
export function shellQuote(word: string): string {
  if (word.includes("\0")) throw new RangeError("a shell word cannot hold a NUL byte");
  if (SHELL_BARE.test(word)) return word;
  return "'" + word.replaceAll("'", `'"'"'`) + "'";
}

/**
 * An argv as one shell command line, each element {@link shellQuote}d.
 *
 * @example
 * ```ts
 * shellJoin(["kubeadm", "join", "--config", "/etc/kubeadm.yml"]); // "kubeadm join --config /etc/kubeadm.yml"
 * ```
 */
export function shellJoin(argv: readonly string[]): string {
  return argv.map(shellQuote).join(" ");
}
