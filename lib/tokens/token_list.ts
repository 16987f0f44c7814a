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
function rowCells(t: ParsedBootstrapToken, now: Date, cache?: ExpiryCache): string[] {
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
  const usages = t.usages.join(",") || "<none>";
  const description = t.description || "<none>";
  const groups = t.groups.join(",") || "<none>";
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
  const opts = { minwidth: 10, padding: 3 };
  let out = "";
  for (let i = 0; i < tokens.length; i++) {
    if (out.length >= WRITE_BYTES) {
      write(out);
      out = "";
    }
    const cells = rowCells(tokens[i]!, now, expiryCache);
    if (i > 0 && !cells.some((c) => CELL_BREAK.test(c))) {
      // What tabwriteRow does with the joined row, without joining and splitting it again.
      let line = "";
      for (let j = 0; j < cells.length - 1; j++) {
        const cell = cells[j]!;
        line += padRight(cell, Math.max(opts.minwidth, runeCount(cell) + opts.padding));
      }
      out += line + cells[cells.length - 1] + "\n";
      continue;
    }
    const row = cells.join("\t") + "\n";
    out += i === 0 ? tabwrite(COLUMNS.join("\t") + "\n" + row, opts) : tabwriteRow(row, opts);
  }
  if (out !== "") write(out);
}

/** Characters that end a cell or a line for the tabwriter. */
const CELL_BREAK = /[\t\v\n\f]/;

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
