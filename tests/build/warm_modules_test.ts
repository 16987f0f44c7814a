/**
 * The snapshot initialises joinkit's own start-up modules at build time
 * (scripts/build.ts WARM_OWN): whatever their module-level code computes is
 * frozen into the binary. This audits every joinkit module those entries reach
 * through static imports: no module-level statement may read the clock,
 * randomness, the environment, the process or the terminal.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { staticGraph } from "../_cli.ts";
import { WARM_OWN } from "../../scripts/build.ts";

/** What module-level code must not touch. */
const RUN_STATE =
  /\b(?:Date\.now|new Date\(|Math\.random|performance\.now|getRandomValues|randomBytes|randomUUID|cryptoRandom\(|Deno\.|isTerminal|isatty|process\.(?:env|argv|pid|ppid|platform|cwd|hrtime|stdout|stderr|stdin|execPath|uptime)|os\.)/;

/**
 * The module-level statements of a source text that run at import: each
 * statement starts at column 0 and runs to the next line that does; function,
 * class, interface, type and import declarations run nothing.
 */
export function moduleLevelHits(text: string): string[] {
  const lines = text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, " ")).split("\n");
  const hits: string[] = [];
  let statement: string[] = [];
  const flush = () => {
    const first = statement[0] ?? "";
    const declares =
      /^(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function|class|interface|type|import|declare|abstract)\b/
        .test(first) || /^import\b/.test(first);
    if (!declares) {
      for (const l of statement) {
        const code = l.replace(/\/\/.*$/, "");
        if (RUN_STATE.test(code)) hits.push(l.trim());
      }
    }
    statement = [];
  };
  for (const line of lines) {
    if (/^\S/.test(line) && !/^[}\])]/.test(line)) flush();
    statement.push(line);
  }
  flush();
  return hits;
}

/** joinkit's own modules reachable from `entry` through static imports. */
function ownStaticGraph(entry: string): string[] {
  return staticGraph(entry).filter((s) => s.startsWith("file:"));
}

Deno.test("moduleLevelHits() flags run state read at import, not inside functions", () => {
  assert.deepEqual(moduleLevelHits("const T = Date.now();\nexport const E = process.env.HOME;\n"), [
    "const T = Date.now();",
    "export const E = process.env.HOME;",
  ]);
  assert.deepEqual(
    moduleLevelHits("const R = (() => {\n  return Math.random();\n})();\n"),
    ["return Math.random();"],
  );
  assert.deepEqual(
    moduleLevelHits(
      "export function now() {\n  return Date.now();\n}\n// Date.now() in a comment\n" +
        "/** new Date() in a doc comment */\nclass C {\n  t = Date.now();\n}\n",
    ),
    [],
  );
});

Deno.test("WARM_OWN modules read no clock, randomness, environment or terminal at import", () => {
  const files = new Set<string>();
  for (const entry of WARM_OWN) for (const f of ownStaticGraph(entry.slice(2))) files.add(f);
  // The walk reaches the dispatcher's and the start-up commands' library code.
  assert.ok(files.size > 15, [...files].join("\n"));
  assert.ok([...files].some((f) => f.endsWith("/lib/pki/der.ts")));
  const hits: string[] = [];
  for (const f of files) {
    for (const h of moduleLevelHits(fs.readFileSync(new URL(f), "utf8"))) hits.push(`${f}: ${h}`);
  }
  assert.deepEqual(hits, []);
});
