/**
 * Go `regexp` (RE2 syntax) patterns run on JavaScript's engine, for policies
 * written for Go programs (kubelet-csr-approver's `--provider-regex`).
 *
 * The pattern is translated, not re-implemented: RE2-only spellings get
 * their JavaScript equivalents (a leading `(?i)`, `(?s)`, `(?m)` flag group,
 * `(?P<name>`, `\A`, `\z`, `\Q…\E`, POSIX classes `[[:alpha:]]`), and what
 * RE2 refuses is refused with Go's error text (lookaround, backreferences,
 * possessive or other Perl-only groups), so a pattern Go's
 * `regexp.MustCompile` would panic on never runs here. The result is
 * compiled in unicode mode (`u`), whose syntax is as strict as RE2's on
 * escapes. Like Go's `MatchString`, matching is unanchored.
 *
 * @module
 */

/** POSIX bracket classes RE2 knows (ASCII), as JavaScript class contents. */
const POSIX: Readonly<Record<string, string>> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: "\\x00-\\x7F",
  blank: "\\t ",
  cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9",
  graph: "!-~",
  lower: "a-z",
  print: " -~",
  punct: "!-\\/:-@\\[-`{-~",
  space: "\\t\\n\\v\\f\\r ",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
};

/** Go's `regexp/syntax` error text: `error parsing regexp: <code>: \`<expr>\``. */
function goError(code: string, expr: string): Error {
  return new Error(`error parsing regexp: ${code}: \`${expr}\``);
}

const escapeLiteral = (s: string) => s.replace(/[\\^$.*+?()[\]{}|/-]/g, (c) => `\\${c}`);

/**
 * Compiles a Go regexp for `test()` (Go's `MatchString`). Throws an `Error`
 * with Go's message (or a joinkit one for the few RE2 features not
 * translated) when the pattern is not valid RE2.
 */
export function compileGoRegexp(pattern: string): RegExp {
  let src = pattern;
  let flags = "u";
  // A leading flag group applies to the whole pattern: JavaScript flags.
  const lead = /^\(\?([a-zA-Z]+)\)/.exec(src);
  if (lead) {
    for (const f of lead[1]!) {
      if (f === "i" || f === "s" || f === "m") {
        if (!flags.includes(f)) flags += f;
      } else if (f === "U") {
        throw new Error(
          `regexp ${JSON.stringify(pattern)}: the U (ungreedy) flag is not supported`,
        );
      } else {
        throw goError("invalid or unsupported Perl syntax", lead[0]);
      }
    }
    src = src.slice(lead[0].length);
  }
  let out = "";
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c === "\\") {
      const n = src[i + 1];
      if (n === undefined) throw goError("trailing backslash at end of expression", "");
      if (n === "Q") {
        const end = src.indexOf("\\E", i + 2);
        const lit = end < 0 ? src.slice(i + 2) : src.slice(i + 2, end);
        out += escapeLiteral(lit);
        i = end < 0 ? src.length : end + 1;
        continue;
      }
      if (!inClass && n === "A") {
        out += "(?<![\\s\\S])";
      } else if (!inClass && n === "z") {
        out += "(?![\\s\\S])";
      } else if (/[1-9]/.test(n) || n === "k") {
        throw goError("invalid escape sequence", `\\${n}`);
      } else if (n === "C" || n === "Z" || n === "G") {
        throw goError("invalid escape sequence", `\\${n}`);
      } else {
        out += c + n;
      }
      i++;
      continue;
    }
    if (inClass) {
      if (c === "[" && src[i + 1] === ":") {
        const m = /^\[:(\^?)([a-z]+):\]/.exec(src.slice(i));
        if (m) {
          const body = POSIX[m[2]!];
          if (body === undefined) throw goError("invalid character class range", m[0]);
          if (m[1]) {
            throw new Error(
              `regexp ${JSON.stringify(pattern)}: negated POSIX classes are not supported`,
            );
          }
          out += body;
          i += m[0].length - 1;
          continue;
        }
      }
      if (c === "]") inClass = false;
      out += c;
      continue;
    }
    if (c === "[") {
      inClass = true;
      out += c;
      // A `]` or `^]` right after `[` is a literal in RE2.
      if (src[i + 1] === "^") {
        out += "^";
        i++;
      }
      if (src[i + 1] === "]") {
        out += "\\]";
        i++;
      }
      continue;
    }
    if (c === "(" && src[i + 1] === "?") {
      const rest = src.slice(i);
      if (rest.startsWith("(?P<")) {
        out += "(?<";
        i += 3;
        continue;
      }
      if (rest.startsWith("(?:") || (rest.startsWith("(?<") && !/^\(\?<[=!]/.test(rest))) {
        out += c;
        continue;
      }
      const g = /^\(\?[^)]*\)?/.exec(rest)![0];
      throw goError("invalid or unsupported Perl syntax", g.slice(0, 3));
    }
    if (c === "{" || c === "}") {
      // RE2 reads a brace that is not a repetition {n}, {n,}, {n,m} as a literal.
      const q = c === "{" ? /^\{\d+(,\d*)?\}/.exec(src.slice(i)) : null;
      if (q) {
        out += q[0];
        i += q[0].length - 1;
        if (src[i + 1] === "+") throw goError("invalid nested repetition operator", q[0] + "+");
      } else out += `\\${c}`;
      continue;
    }
    if ((c === "*" || c === "+" || c === "?") && src[i + 1] === "+") {
      throw goError("invalid nested repetition operator", c + "+");
    }
    out += c;
  }
  if (inClass) throw goError("missing closing ]", src.slice(src.lastIndexOf("[")));
  try {
    return new RegExp(out, flags);
  } catch (e) {
    throw new Error(
      `error parsing regexp: ${(e as Error).message.replace(/^Invalid regular expression: /, "")}`,
    );
  }
}
