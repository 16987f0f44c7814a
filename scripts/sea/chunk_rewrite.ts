/**
 * What scripts/build.ts changes in each chunk of esbuild's ESM output before
 * esbuild's CommonJS transform, so that calls between chunks cost what they
 * cost in one bundle (the loader: scripts/sea/chunk_loader.ts). Measured on
 * `cert inspect` of 10,000 files, which calls the certificate parser across
 * chunks: 1.44× the CPU of the one-file bundle before, see docs/binary.md.
 *
 * - **Exports become plain values where that means the same.** esbuild's
 *   transform exports each binding through a getter, wrapped in a second
 *   object of getters (`__toCommonJS`): every call into another chunk went
 *   through two getter calls. After a chunk has run, a binding that nothing
 *   ever assigns again holds its final value, and a data property with that
 *   value means the same as the getter; one that is assigned anywhere (a
 *   lazily set cache, a counter) keeps its getter, as an ES module's live
 *   binding would. The chunk graph has no cycles (esbuild puts shared code in
 *   a chunk whose entry points are a superset of its importers'), so no chunk
 *   reads another's exports before that one has run. The judgement is
 *   conservative: a name assigned anywhere in the chunk, in any scope, counts
 *   as assigned; a re-exported import keeps its getter.
 * - **`import("./chunk.js")` becomes a `require()` in a promise.** esbuild's
 *   transform wraps each dynamic import's module in a fresh copy of getters
 *   (`__toESM`) at every call, and joinkit imports modules lazily inside
 *   functions called once per file (`await import("./cert_info.ts")`): 25 ms
 *   and most of 40 ms more garbage collection in that run. The chunk's
 *   exports object is what a namespace gives.
 * - **`import * as fs from "node:fs"` becomes `const fs = require("node:fs")`**,
 *   for the same reason (`__toESM` copies Node's module into getters).
 *
 * @module
 */

// The typescript package's API, loaded by the build from node_modules; typed loosely here
// (Deno does not resolve the package's types without an import map entry).
// deno-lint-ignore no-explicit-any
type Ts = any;
// deno-lint-ignore no-explicit-any
type Node = any;

/**
 * `text` (one chunk of esbuild's ESM output) with its dynamic imports of
 * chunks and its namespace imports of Node built-ins made `require()`s (see
 * the module's comment), its exported names, and of those the `stable` ones: whose local binding is a `const`, or a `let`,
 * `var`, function or class that no assignment, `++`/`--`, `for (… of/in …)`
 * target or nested `var` ever names. `ts` is the typescript module.
 *
 * @example
 * ```ts ignore
 * const ts = await import("./node_modules/typescript/lib/typescript.js");
 * rewriteChunk(ts, 'let a=1,b=2;function f(){b++}export{a as x,b as y,f};');
 * // { text: (the same), exported: ["f", "x", "y"], stable: ["f", "x"] }
 * ```
 */
export function rewriteChunk(
  ts: Ts,
  text: string,
): { text: string; exported: string[]; stable: string[] } {
  const sf = ts.createSourceFile("chunk.js", text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const declared = new Map<string, "const" | "binding">();
  const assigned = new Set<string>();
  const exported: [exportedName: string, local: string][] = [];
  const edits: [start: number, end: number, text: string][] = [];
  let directEval = false;

  const bindingNames = (name: Node, out: string[]) => {
    if (ts.isIdentifier(name)) out.push(name.text);
    else if (ts.isObjectBindingPattern(name) || ts.isArrayBindingPattern(name)) {
      for (const el of name.elements) if (!ts.isOmittedExpression(el)) bindingNames(el.name, out);
    }
  };
  // The names an assignment target writes: `x`, `[x, y]`, `({a: x, y, ...z})`, `x = 1` defaults.
  const targetNames = (target: Node) => {
    if (ts.isIdentifier(target)) assigned.add(target.text);
    else if (ts.isParenthesizedExpression(target)) targetNames(target.expression);
    else if (ts.isArrayLiteralExpression(target)) target.elements.forEach(targetNames);
    else if (ts.isObjectLiteralExpression(target)) {
      for (const p of target.properties) {
        if (ts.isShorthandPropertyAssignment(p)) assigned.add(p.name.text);
        else if (ts.isPropertyAssignment(p)) targetNames(p.initializer);
        else if (ts.isSpreadAssignment(p)) targetNames(p.expression);
      }
    } else if (ts.isSpreadElement(target)) targetNames(target.expression);
    else if (
      ts.isBinaryExpression(target) && target.operatorToken.kind === ts.SyntaxKind.EqualsToken
    ) {
      targetNames(target.left);
    }
  };

  // A second top-level declaration of a name writes it again.
  const declare = (name: string, kind: "const" | "binding") => {
    if (declared.has(name)) assigned.add(name);
    declared.set(name, kind);
  };
  const refuse = (st: Node): never => {
    // esbuild's chunks export with one `export{…}` list; any other form (export *, a re-export
    // from another module, export default, an exported declaration) would be left out of the
    // settled exports: refuse it rather than drop names.
    throw new Error(
      `chunk export this build does not handle: ${
        text.slice(st.getStart(sf), st.end).slice(0, 80)
      }`,
    );
  };
  for (const st of sf.statements) {
    if ((st.modifiers ?? []).some((m: Node) => m.kind === ts.SyntaxKind.ExportKeyword)) refuse(st);
    if ((ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st)) && st.name) {
      declare(st.name.text, "binding");
    } else if (ts.isVariableStatement(st)) {
      const isConst = (st.declarationList.flags & ts.NodeFlags.Const) !== 0;
      for (const d of st.declarationList.declarations) {
        const names: string[] = [];
        bindingNames(d.name, names);
        for (const n of names) declare(n, isConst ? "const" : "binding");
      }
    } else if (
      ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier) &&
      st.moduleSpecifier.text.startsWith("node:") && st.importClause?.namedBindings &&
      ts.isNamespaceImport(st.importClause.namedBindings) && !st.importClause.name
    ) {
      const local = st.importClause.namedBindings.name.text;
      edits.push([
        st.getStart(sf),
        st.end,
        `const ${local}=require(${JSON.stringify(st.moduleSpecifier.text)});`,
      ]);
    } else if (
      ts.isExportDeclaration(st) && !st.moduleSpecifier && st.exportClause &&
      ts.isNamedExports(st.exportClause) && !st.isTypeOnly
    ) {
      for (const el of st.exportClause.elements) {
        exported.push([el.name.text, (el.propertyName ?? el.name).text]);
      }
    } else if (ts.isExportDeclaration(st) || ts.isExportAssignment(st)) {
      refuse(st);
    }
  }

  // A `var` in a block at the top level (not in a function) is the top-level binding: its
  // initialiser, or a for-in/of over it, writes it. Counted wherever it stands (conservative).
  const visit = (node: Node): void => {
    const isVar = ts.isVariableDeclarationList(node) &&
      (node.flags & (ts.NodeFlags.Let | ts.NodeFlags.Const)) === 0;
    const topLevel = isVar && ts.isVariableStatement(node.parent) && node.parent.parent === sf;
    if (isVar && !topLevel) {
      for (const d of node.declarations) {
        const names: string[] = [];
        bindingNames(d.name, names);
        names.forEach((n) => assigned.add(n));
      }
    }
    if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
      node.operatorToken.kind <= ts.SyntaxKind.LastAssignment
    ) {
      targetNames(node.left);
    } else if (
      (ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) &&
      (node.operator === ts.SyntaxKind.PlusPlusToken ||
        node.operator === ts.SyntaxKind.MinusMinusToken)
    ) {
      targetNames(node.operand);
    } else if (
      (ts.isForOfStatement(node) || ts.isForInStatement(node)) &&
      !ts.isVariableDeclarationList(node.initializer)
    ) {
      targetNames(node.initializer);
    } else if (
      ts.isCallExpression(node) && ts.isIdentifier(node.expression) &&
      node.expression.text === "eval"
    ) {
      // A direct eval can write any binding in scope: nothing of this chunk is stable.
      directEval = true;
    } else if (
      ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments.length === 1 && ts.isStringLiteral(node.arguments[0]) &&
      /^\.\.?\//.test(node.arguments[0].text)
    ) {
      edits.push([
        node.getStart(sf),
        node.end,
        `Promise.resolve().then(()=>require(${JSON.stringify(node.arguments[0].text)}))`,
      ]);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);

  let out = text;
  for (const [start, end, replacement] of edits.sort((x, y) => y[0] - x[0])) {
    out = out.slice(0, start) + replacement + out.slice(end);
  }
  return {
    text: out,
    exported: exported.map(([name]) => name).sort(),
    stable: exported
      .filter(([, local]) => {
        if (directEval) return false;
        const kind = declared.get(local);
        return kind === "const" || (kind === "binding" && !assigned.has(local));
      })
      .map(([name]) => name)
      .sort(),
  };
}

/**
 * The statement scripts/build.ts appends to a chunk's CommonJS code: it
 * replaces the chunk's exports (esbuild's getters) by one object literal
 * whose `stable` names are data properties holding their final values and
 * whose other names keep a getter (an object literal has a fixed shape:
 * V8 keeps its properties fast). Empty when the chunk exports nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const tail = settleExportsStatement(["f", "n"], ["f"]);
 * const module = { exports: {} as Record<string, unknown> };
 * let n = 1;
 * Object.defineProperty(module.exports, "f", { get: () => () => n, enumerable: true });
 * Object.defineProperty(module.exports, "n", { get: () => n, enumerable: true });
 * new Function("module", tail)(module);
 * n = 2;
 * assert.equal(Object.getOwnPropertyDescriptor(module.exports, "f")!.get, undefined);
 * assert.equal((module.exports.f as () => number)(), 2);
 * assert.equal(module.exports.n, 2);
 * ```
 */
export function settleExportsStatement(
  exported: readonly string[],
  stable: readonly string[],
): string {
  if (exported.length === 0) return "";
  const keep = new Set(stable);
  const props = exported.map((name) => {
    const key = JSON.stringify(name);
    return keep.has(name) ? `${key}:e[${key}]` : `get ${key}(){return e[${key}]}`;
  });
  return `;{const e=module.exports;module.exports=Object.defineProperty({${
    props.join(",")
  }},"__esModule",{value:!0})}`;
}
