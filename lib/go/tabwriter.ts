/**
 * Go's `text/tabwriter` (space padding, no flags), the way kubeadm and
 * kubectl print tables, and `fmt`'s `%-Ns` that kubeadm's rows use with it.
 * Widths count code points, as Go counts runes.
 *
 * @module
 */

/** Width of text as Go counts it for tabwriter and `%-Ns`: in code points. */
export function runeCount(text: string): number {
  // No surrogate: one code point per code unit.
  if (!/[\uD800-\uDFFF]/.test(text)) return text.length;
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * Go's `fmt.Sprintf("%-Ns", text)`: padded with spaces to `width` runes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { padRight } from "./tabwriter.ts";
 * assert.equal(padRight("é", 3), "é  ");
 * ```
 */
export function padRight(text: string, width: number): string {
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
 * import assert from "node:assert/strict";
 * import { tabwrite } from "./tabwriter.ts";
 * assert.equal(tabwrite("a\tb\nccc\td\n", { minwidth: 0, padding: 1 }), "a   b\nccc d\n");
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
