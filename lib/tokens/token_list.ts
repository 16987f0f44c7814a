/**
 * `kubeadm token list` output: the text table (k/k `cmd/kubeadm/app/cmd/token.go`,
 * `tokenTextPrinter`, with Go's `text/tabwriter`) and the
 * `output.kubeadm.k8s.io/v1alpha3` `BootstrapToken` objects.
 *
 * @module
 */

import type { ParsedBootstrapToken } from "./bootstrap_token.ts";
import { tokenString } from "./token.ts";
import { formatGoRfc3339, formatRfc3339 } from "../go/time.ts";
import { shortHumanDuration } from "../go/human_duration.ts";
import { padRight, runeCount, tabwrite } from "../go/tabwriter.ts";

/** The table's columns. */
export const COLUMNS = ["TOKEN", "TTL", "EXPIRES", "USAGES", "DESCRIPTION", "EXTRA GROUPS"];

/** The last expiry {@link formatTokenRow} rendered, for the rows that share it. */
export interface ExpiryCache {
  last?: {
    ms: number;
    offset: number;
    unix: number | undefined;
    nanos: number | undefined;
    zone: number | undefined;
    ttl: string;
    expires: string;
  };
}

/** One token's row, as kubeadm's `formatBootstrapToken`. */
export function formatTokenRow(t: ParsedBootstrapToken, now: Date, cache?: ExpiryCache): string {
  return rowCells(t, now, cache).join("\t") + "\n";
}

/** The cells of {@link formatTokenRow}, before the tabs join them. */
function rowCells(
  t: ParsedBootstrapToken,
  now: Date,
  cache?: ExpiryCache,
  joins?: Joins,
): string[] {
  let ttl = "<forever>";
  let expires = "<never>";
  const e = t.expires;
  if (e) {
    // A fleet's tokens often share one expiry: its two columns are computed once.
    const c = cache?.last;
    if (
      c && c.ms === e.date.getTime() && c.offset === e.offsetMinutes &&
      c.unix === e.instant?.unix && c.nanos === e.instant?.nanos &&
      c.zone === e.instant?.offsetSeconds
    ) {
      ttl = c.ttl;
      expires = c.expires;
    } else {
      ttl = shortHumanDuration(e.date.getTime() - now.getTime());
      expires = formatGoRfc3339(e);
      if (cache) {
        cache.last = {
          ms: e.date.getTime(),
          offset: e.offsetMinutes,
          unix: e.instant?.unix,
          nanos: e.instant?.nanos,
          zone: e.instant?.offsetSeconds,
          ttl,
          expires,
        };
      }
    }
  }
  const usages = (joins ? joined(t.usages, joins.usages) : t.usages.join(",")) || "<none>";
  const description = t.description || "<none>";
  const groups = (joins ? joined(t.groups, joins.groups) : t.groups.join(",")) || "<none>";
  return [
    tokenString(t.token),
    padRight(ttl, 9),
    expires,
    padRight(usages, 22),
    padRight(description, 56),
    groups,
  ];
}

/**
 * The text table as `kubeadm token list` prints it: a new tabwriter
 * (minwidth 10, padding 3) per token, the header only with the first, so
 * rows align only through the fixed paddings. No tokens, no output.
 *
 * @example
 * ```ts ignore
 * formatTokenTable(tokens, new Date());
 * ```
 */
export function formatTokenTable(tokens: readonly ParsedBootstrapToken[], now: Date): string {
  let out = "";
  writeTokenTable(tokens, now, (text) => out += text);
  return out;
}

/** Text handed to `write` at a time by {@link writeTokenTable} (about). */
const WRITE_BYTES = 1 << 16;

/**
 * {@link formatTokenTable} handed to `write` in pieces of about 64 KiB, so
 * a fleet's rows are not all held at once (the pieces concatenated are
 * exactly its text). Nothing is written when there are no tokens.
 *
 * @example
 * ```ts ignore
 * writeTokenTable(tokens, new Date(), (text) => process.stdout.write(text));
 * ```
 */
export function writeTokenTable(
  tokens: readonly ParsedBootstrapToken[],
  now: Date,
  write: (text: string) => void,
): void {
  const expiryCache: ExpiryCache = {};
  const joins: Joins = { usages: {}, groups: {} };
  const padded: PaddedCell[] = [];
  const opts = { minwidth: 10, padding: 3 };
  let out = "";
  for (let i = 0; i < tokens.length; i++) {
    if (out.length >= WRITE_BYTES) {
      write(out);
      out = "";
    }
    const cells = rowCells(tokens[i]!, now, expiryCache, joins);
    if (i > 0) {
      const line = plainRow(cells, padded);
      if (line !== undefined) {
        out += line;
        continue;
      }
    }
    const row = cells.join("\t") + "\n";
    out += i === 0 ? tabwrite(COLUMNS.join("\t") + "\n" + row, opts) : tabwriteRow(row, opts);
  }
  if (out !== "") write(out);
}

/** Characters that end a cell or a line for the tabwriter. */
const CELL_BREAK = /[\t\v\n\f]/;

/** A cell as a row on its own writes it (undefined: it holds a break), for the column's next rows. */
interface PaddedCell {
  cell: string;
  text: string | undefined;
}

/**
 * What tabwriteRow writes for a row of these cells (each but the last padded
 * to its own width plus padding), without joining and splitting it; undefined
 * when a cell holds a tab or a line break (tabwriteRow then reads the row).
 * Columns repeat their values down a fleet's rows: each column's last cell
 * is remembered in `padded`.
 */
function plainRow(cells: readonly string[], padded: PaddedCell[]): string | undefined {
  const last = cells.length - 1;
  let line = "";
  for (let j = 0; j <= last; j++) {
    const cell = cells[j]!;
    let p = padded[j];
    if (p === undefined || p.cell !== cell) {
      const text = CELL_BREAK.test(cell)
        ? undefined
        : j === last
        ? cell
        : padRight(cell, Math.max(10, runeCount(cell) + 3));
      p = { cell, text };
      padded[j] = p;
    }
    if (p.text === undefined) return undefined;
    line += p.text;
  }
  return line + "\n";
}

/** The last list joined per column (usages, groups), for the rows that share it. */
interface Joins {
  usages: { list?: readonly string[]; text?: string };
  groups: { list?: readonly string[]; text?: string };
}

/** `list.join(",")`, remembered in `memo` for the next equal list. */
function joined(
  list: readonly string[],
  memo: { list?: readonly string[]; text?: string },
): string {
  const l = memo.list;
  if (l !== undefined && l.length === list.length) {
    let same = true;
    for (let k = 0; k < l.length; k++) {
      if (l[k] !== list[k]) {
        same = false;
        break;
      }
    }
    if (same) return memo.text!;
  }
  const text = list.join(",");
  memo.list = list;
  memo.text = text;
  return text;
}

/**
 * Tokens sorted by Secret name, by code units (the order of `sort()`; equal
 * names keep their order). Names of valid tokens (`bootstrap-token-` and six
 * of `[a-z0-9]`) are sorted as numbers, without a string comparison per pair.
 *
 * @example
 * ```ts ignore
 * sortTokensByName(tokens).map((t) => t.name);
 * ```
 */
export function sortTokensByName(tokens: readonly ParsedBootstrapToken[]): ParsedBootstrapToken[] {
  const n = tokens.length;
  if (n <= INDEX_SPAN) {
    const keys = new Float64Array(n);
    let i = 0;
    for (; i < n; i++) {
      const k = nameKey(tokens[i]!.name);
      if (k < 0) break;
      // Exact: the key is below 36^6 < 2^32, the index below 2^21.
      keys[i] = k * INDEX_SPAN + i;
    }
    if (i === n) {
      keys.sort();
      const out = new Array<ParsedBootstrapToken>(n);
      for (let j = 0; j < n; j++) out[j] = tokens[keys[j]! % INDEX_SPAN]!;
      return out;
    }
  }
  return [...tokens].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const INDEX_SPAN = 2 ** 21;
const NAME_PREFIX = "bootstrap-token-";

/**
 * `bootstrap-token-<id>` with `id` six of `[a-z0-9]` as a number in the same
 * order as the names (digits before letters, as in code units), else -1.
 */
function nameKey(name: string): number {
  if (name.length !== NAME_PREFIX.length + 6 || !name.startsWith(NAME_PREFIX)) return -1;
  let k = 0;
  for (let i = NAME_PREFIX.length; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c >= 48 && c <= 57) k = k * 36 + (c - 48);
    else if (c >= 97 && c <= 122) k = k * 36 + (c - 87);
    else return -1;
  }
  return k;
}

/**
 * `tabwrite` of one line on its own (a tabwriter with nothing to align it
 * with): each cell ended by a tab is padded to its own width plus padding.
 */
function tabwriteRow(row: string, opts: { minwidth: number; padding: number }): string {
  const body = row.slice(0, -1);
  if (!row.endsWith("\n") || /[\n\f]/.test(body)) return tabwrite(row, opts);
  const cells = body.split(/[\t\v]/);
  let line = "";
  for (let j = 0; j < cells.length - 1; j++) {
    const cell = cells[j]!;
    line += padRight(cell, Math.max(opts.minwidth, runeCount(cell) + opts.padding));
  }
  return line + cells[cells.length - 1] + "\n";
}

/**
 * The `output.kubeadm.k8s.io/v1alpha3` `BootstrapToken` object, fields in Go
 * struct order (kind, apiVersion, token, description, expires, usages, groups);
 * empty ones omitted, `expires` in UTC. It carries the full token, as kubeadm's does.
 *
 * @example
 * ```ts ignore
 * tokenOutputObject(parsed).kind; // "BootstrapToken"
 * ```
 */
export function tokenOutputObject(t: ParsedBootstrapToken): Record<string, unknown> {
  const obj: Record<string, unknown> = {
    kind: "BootstrapToken",
    apiVersion: "output.kubeadm.k8s.io/v1alpha3",
    token: tokenString(t.token),
  };
  if (t.description) obj.description = t.description;
  if (t.expires) obj.expires = formatRfc3339(t.expires.date);
  if (t.usages.length) obj.usages = [...t.usages];
  if (t.groups.length) obj.groups = [...t.groups];
  return obj;
}
