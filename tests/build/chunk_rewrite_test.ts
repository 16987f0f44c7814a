/**
 * scripts/sea/chunk_rewrite.ts: which exports become plain values, and the
 * rewritten imports, on hand-written chunks in esbuild's ESM output style.
 */
import assert from "node:assert/strict";
import { rewriteChunk, settleExportsStatement } from "../../scripts/sea/chunk_rewrite.ts";
import { repoPath } from "../_cli.ts";

const tsModule = await import(repoPath("node_modules/typescript/lib/typescript.js"));
const ts = tsModule.default ?? tsModule;

Deno.test("rewriteChunk(): a binding nothing assigns again is stable; any write keeps the getter", () => {
  const cases: [code: string, stable: string[]][] = [
    ["const a=1;export{a};", ["a"]],
    ["let a=1;export{a};", ["a"]],
    ["var a=1;export{a as b};", ["b"]],
    ["function f(){}class C{}export{f,C};", ["C", "f"]],
    ["let a=1;function g(){a=2}export{a,g};", ["g"]],
    ["let a=1;function g(){a+=2}export{a};", []],
    ["let a=1;function g(){a??=2}export{a};", []],
    ["let a=1;function g(){a++}export{a};", []],
    ["let a=1;function g(){--a}export{a};", []],
    ["let a,b;function g(){[a,,b]=[1,2,3]}export{a,b};", []],
    ["let a,b;function g(){({x:a,b}={x:1,b:2})}export{a,b};", []],
    ["let a;function g(){[...a]=[1]}export{a};", []],
    ["let a;function g(){({...a}={})}export{a};", []],
    ["let a;function g(){[a=1]=[]}export{a};", []],
    ["let a;function g(o){for(a of o);}export{a};", []],
    ["let a;function g(o){for(a in o);}export{a};", []],
    // A var in a block at the top level is the same binding; in a function it is not, but
    // counts too (the judgement is conservative).
    ["var a=1;if(x){var a=2}export{a};", []],
    ["var a=1;function g(){var a=2}export{a};", []],
    ["var a=1;var a=2;export{a};", []],
    ["function f(){}function h(){f=null}export{f};", []],
    // The same name written in another scope still counts: conservative, never wrong.
    ["let a=1;function g(a){a=2}export{a};", []],
    // let/const in another scope are other bindings, and are not writes.
    ["let a=1;function g(){let a=2;const b=a}export{a};", ["a"]],
    ['import{x as a}from"./chunk-A.js";export{a};', []],
    ["let a=1;export{a as default};", ["default"]],
  ];
  for (const [code, stable] of cases) {
    const r = rewriteChunk(ts, code);
    assert.deepEqual(r.stable, stable, code);
    assert.ok(r.exported.every((n) => /^[\w$]+$/.test(n)), code);
  }
  assert.deepEqual(rewriteChunk(ts, "let a=1,b=2;function f(){b++}export{a as x,b as y,f};"), {
    text: "let a=1,b=2;function f(){b++}export{a as x,b as y,f};",
    exported: ["f", "x", "y"],
    stable: ["f", "x"],
  });
});

Deno.test("rewriteChunk(): import() of a chunk and namespace imports of built-ins become require()", () => {
  const cases: [code: string, want: string][] = [
    [
      'async function f(){return(await import("./chunk-A.js")).x}',
      'async function f(){return(await Promise.resolve().then(()=>require("./chunk-A.js"))).x}',
    ],
    [
      'const m=()=>import("../main.js");',
      'const m=()=>Promise.resolve().then(()=>require("../main.js"));',
    ],
    ['import*as e from"node:fs";e.readSync(0);', 'const e=require("node:fs");e.readSync(0);'],
    [
      'import*as e from"node:fs/promises";import*as t from"node:path";',
      'const e=require("node:fs/promises");const t=require("node:path");',
    ],
    // Untouched: named and default imports of built-ins, imports of chunks, import() of a
    // package or a computed name, and what only looks like them inside strings.
    ['import{readSync as e}from"node:fs";', 'import{readSync as e}from"node:fs";'],
    ['import e from"node:fs";', 'import e from"node:fs";'],
    ['import*as e from"./chunk-A.js";', 'import*as e from"./chunk-A.js";'],
    ['const m=import("node:fs"),n=import(x);', 'const m=import("node:fs"),n=import(x);'],
    [
      'const s="import(\\"./chunk-A.js\\")",t=`import*as e from"node:fs";`;',
      'const s="import(\\"./chunk-A.js\\")",t=`import*as e from"node:fs";`;',
    ],
  ];
  for (const [code, want] of cases) assert.equal(rewriteChunk(ts, code).text, want, code);
});

Deno.test("settleExportsStatement(): stable names become data properties, the others keep a getter", () => {
  assert.equal(settleExportsStatement([], []), "");
  const tail = settleExportsStatement(["f", "n", "default", "odd-name"], [
    "f",
    "default",
    "odd-name",
  ]);
  const module = { exports: {} as Record<string, unknown> };
  let n = 1;
  const fn = (): number => n;
  const getters: Record<string, () => unknown> = {
    f: () => fn,
    n: () => n,
    default: () => 7,
    "odd-name": () => 8,
  };
  for (const [k, get] of Object.entries(getters)) {
    Object.defineProperty(module.exports, k, { get, enumerable: true });
  }
  new Function("module", tail)(module);
  n = 2;
  const d = (k: string) => Object.getOwnPropertyDescriptor(module.exports, k)!;
  assert.equal(d("f").get, undefined);
  assert.equal(d("f").value, fn);
  assert.equal(typeof d("n").get, "function", "a written binding stays live");
  assert.equal(module.exports.n, 2);
  assert.equal(module.exports.default, 7);
  assert.equal(module.exports["odd-name"], 8);
  assert.deepEqual(Object.keys(module.exports), ["f", "n", "default", "odd-name"]);
  assert.equal(module.exports.__esModule, true);
  assert.equal(d("__esModule").enumerable, false);
});

Deno.test("rewriteChunk(): an export form other than one export{…} list is refused, never dropped", () => {
  for (
    const code of [
      'export*from"node:path";export{a};let a=1;',
      'export{join}from"node:path";',
      'export{x as y}from"./chunk-A.js";',
      "export default 1;",
      "export let a=1;",
      "export function f(){}",
      "export class C{}",
    ]
  ) {
    assert.throws(() => rewriteChunk(ts, code), /chunk export this build does not handle/, code);
  }
});

Deno.test("rewriteChunk(): a direct eval makes nothing stable (it can write any binding)", () => {
  assert.deepEqual(
    rewriteChunk(ts, 'let a=1;const b=2;function g(){eval("a=2")}export{a,b,g};').stable,
    [],
  );
  // A method called eval is not the eval.
  assert.deepEqual(rewriteChunk(ts, "let a=1;o.eval(x);export{a};").stable, ["a"]);
});
