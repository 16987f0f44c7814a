/**
 * `kubeadm token list` output: the text table (k/k `cmd/kubeadm/app/cmd/token.go`,
 * `tokenTextPrinter`, with Go's `text/tabwriter`) and the
 * `output.kubeadm.k8s.io/v1alpha3` `BootstrapToken` objects.
 *
 * @module
 */

import { formatGoRfc3339, type ParsedBootstrapToken } from "./bootstrap_token.ts";
import { formatRfc3339 } from "../go/time.ts";

/** The table's columns. */
export const COLUMNS = ["TOKEN", "TTL", "EXPIRES", "USAGES", "DESCRIPTION", "EXTRA GROUPS"];

/**
 * apimachinery's `duration.ShortHumanDuration`: `<invalid>` below -1 s, then
 * `0s`, seconds, minutes, hours, days (under 365 days), years.
 *
 * @example
 * ```ts
 * shortHumanDuration(23.5 * 3_600_000); // "23h"
 * ```
 */
export function shortHumanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.trunc(ms / 60_000);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.trunc(ms / 3_600_000);
  if (hours < 24) return `${hours}h`;
  if (hours < 24 * 365) return `${Math.trunc(hours / 24)}d`;
  return `${Math.trunc(ms / 3_600_000 / 24 / 365)}y`;
}

/** Width of text as Go counts it for tabwriter and `%-Ns`: in code points. */
function runeCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** Go's `fmt.Sprintf("%-Ns", text)`. */
function padRight(text: string, width: number): string {
  const n = runeCount(text);
  return n >= width ? text : text + " ".repeat(width - n);
}

/** Options of a Go `tabwriter.NewWriter(w, minwidth, tabwidth, padding, ' ', 0)`. */
export interface TabwriterOptions {
  minwidth: number;
  padding: number;
}

/**
 * Formats text as Go's `text/tabwriter` with a space pad character and no
 * flags, written then flushed once. A cell is text terminated by a tab; a
 * column block is a run of adjacent lines that all have a terminated cell in
 * that column, padded to the widest cell plus `padding` (at least
 * `minwidth`). The text after a line's last tab is not padded. (Go's nested
 * blocks come to the same thing: a line with a cell in column j has cells in
 * every column before it.) Form feeds end lines as newlines do.
 *
 * @example
 * ```ts
 * tabwrite("a\tb\nccc\td\n", { minwidth: 0, padding: 1 }); // "a   b\nccc d\n"
 * ```
 */
export function tabwrite(text: string, opts: TabwriterOptions): string {
  const rawLines = text.split(/[\n\f]/);
  const endsWithNewline = rawLines.length > 1 && rawLines[rawLines.length - 1] === "";
  if (endsWithNewline) rawLines.pop();
  const lines = rawLines.map((l) => l.split(/[\t\v]/));
  const terminated = (k: number, j: number) => j < lines[k]!.length - 1;
  const out = lines.map((cells, li) => {
    let line = "";
    for (let j = 0; j < cells.length; j++) {
      if (!terminated(li, j)) {
        line += cells[j];
        continue;
      }
      let a = li;
      while (a > 0 && terminated(a - 1, j)) a--;
      let b = li;
      while (b < lines.length - 1 && terminated(b + 1, j)) b++;
      let width = opts.minwidth;
      for (let k = a; k <= b; k++) width = Math.max(width, runeCount(lines[k]![j]!) + opts.padding);
      line += padRight(cells[j]!, width);
    }
    return line;
  });
  return out.join("\n") + (endsWithNewline ? "\n" : "");
}

/** One token's row, as kubeadm's `formatBootstrapToken`. */
export function formatTokenRow(t: ParsedBootstrapToken, now: Date): string {
  let ttl = "<forever>";
  let expires = "<never>";
  if (t.expires) {
    ttl = shortHumanDuration(t.expires.date.getTime() - now.getTime());
    expires = formatGoRfc3339(t.expires);
  }
  const usages = t.usages.join(",") || "<none>";
  const description = t.description || "<none>";
  const groups = t.groups.join(",") || "<none>";
  return `${t.token.id}.${t.token.secret}\t${padRight(ttl, 9)}\t${expires}\t${
    padRight(usages, 22)
  }\t${padRight(description, 56)}\t${groups}\n`;
}

/**
 * The text table as `kubeadm token list` prints it: a new tabwriter
 * (minwidth 10, padding 3) per token, the header only with the first, so
 * rows align only through the fixed paddings. No tokens, no output.
 *
 * @example
 * ```ts
 * formatTokenTable(tokens, new Date());
 * ```
 */
export function formatTokenTable(tokens: readonly ParsedBootstrapToken[], now: Date): string {
  const opts = { minwidth: 10, padding: 3 };
  return tokens.map((t, i) =>
    tabwrite((i === 0 ? COLUMNS.join("\t") + "\n" : "") + formatTokenRow(t, now), opts)
  ).join("");
}

/**
 * The `output.kubeadm.k8s.io/v1alpha3` `BootstrapToken` object, fields in Go
 * struct order (kind, apiVersion, token, description, expires, usages, groups);
 * empty ones omitted, `expires` in UTC. It carries the full token, as kubeadm's does.
 *
 * @example
 * ```ts
 * tokenOutputObject(parsed).kind; // "BootstrapToken"
 * ```
 */
export function tokenOutputObject(t: ParsedBootstrapToken): Record<string, unknown> {
  const obj: Record<string, unknown> = {
    kind: "BootstrapToken",
    apiVersion: "output.kubeadm.k8s.io/v1alpha3",
    token: `${t.token.id}.${t.token.secret}`,
  };
  if (t.description) obj.description = t.description;
  if (t.expires) obj.expires = formatRfc3339(t.expires.date);
  if (t.usages.length) obj.usages = [...t.usages];
  if (t.groups.length) obj.groups = [...t.groups];
  return obj;
}

/**
 * Serialises as Go's `json.MarshalIndent(v, "", "    ")` plus a newline,
 * keeping key order and escaping `<`, `>`, `&`, U+2028 and U+2029 as Go does.
 *
 * @example
 * ```ts
 * goJsonIndent({ a: "<" }); // '{\n    "a": "\\u003c"\n}\n'
 * ```
 */
export function goJsonIndent(value: unknown): string {
  return JSON.stringify(value, null, 4).replace(
    /[<>&\u2028\u2029]/g,
    (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"),
  ) + "\n";
}
