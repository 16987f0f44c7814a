import assert from "node:assert/strict";
import { padRight, tabwrite } from "../../lib/go/tabwriter.ts";

Deno.test("tabwrite() pads column blocks as Go's text/tabwriter", () => {
  const o = { minwidth: 10, padding: 3 };
  assert.equal(tabwrite("a\tb\tc\n", o), "a         b         c\n");
  assert.equal(tabwrite("aaaaaaaaaaaa\tb\nc\td\n", o), "aaaaaaaaaaaa   b\nc              d\n");
  // a line without tabs ends the block; the trailing cell is never padded
  assert.equal(tabwrite("a\tb\nxx\nccccccccccc\td\n", o), "a         b\nxx\nccccccccccc   d\n");
  // cells are counted in code points
  assert.equal(tabwrite("é\tx\n", { minwidth: 0, padding: 1 }), "é x\n");
  assert.equal(tabwrite("", o), "");
  assert.equal(tabwrite("a\tb", o), "a         b");
});

Deno.test("padRight() is fmt's %-Ns, counting runes", () => {
  assert.equal(padRight("ab", 4), "ab  ");
  assert.equal(padRight("é", 3), "é  ");
  assert.equal(padRight("toolong", 3), "toolong");
});
