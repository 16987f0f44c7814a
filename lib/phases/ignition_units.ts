/**
 * Ignition's (spec v3) rules for `systemd.units`, with its texts: unit
 * names by extension, one entry per name (`duplicate entry defined`),
 * drop-ins named `*.conf`, contents that parse as a unit file (go-systemd's
 * `unit.Deserialize`), and an enabled unit without `[Install]` options (a
 * warning). A part of `validateIgnitionConfig` (ignition_validate.ts).
 *
 * @module
 */

import { type IgnitionReport, unusedKeys } from "./ignition_validate.ts";

const UNIT_EXTENSIONS = [
  ".service",
  ".socket",
  ".device",
  ".mount",
  ".automount",
  ".swap",
  ".target",
  ".path",
  ".timer",
  ".snapshot",
  ".slice",
  ".scope",
];

const UNIT_KEYS = ["name", "enabled", "mask", "contents", "dropins"];
const DROPIN_KEYS = ["name", "contents"];

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Judges `units` (a config's `systemd.units`) into `r` and returns the
 * paths their contents take under `/etc/systemd/system/` (for Ignition's
 * `path conflicts with systemd unit or dropin`).
 *
 * @example
 * ```ts ignore
 * validateUnits([{ name: "x.foo" }], r); // r.errors: ["systemd.units.0.name: invalid systemd unit extension"]
 * ```
 */
export function validateUnits(units: unknown, r: IgnitionReport): Set<string> {
  const unitPaths = new Set<string>();
  if (units !== undefined && !Array.isArray(units)) r.errors.push("systemd.units: not a list");
  const unitNames = new Set<string>();
  (Array.isArray(units) ? units : []).forEach((u, i) => {
    const at = `systemd.units.${i}`;
    if (!isObj(u)) {
      r.errors.push(`${at}: not an object`);
      return;
    }
    unusedKeys(u, UNIT_KEYS, at, r);
    const name = typeof u.name === "string" ? u.name : "";
    if (unitNames.has(name)) r.errors.push(`${at}: duplicate entry defined`);
    unitNames.add(name);
    if (!UNIT_EXTENSIONS.includes(extension(name))) {
      r.errors.push(`${at}.name: invalid systemd unit extension`);
    }
    if (u.enabled !== undefined && typeof u.enabled !== "boolean") {
      r.errors.push(`${at}.enabled: not a boolean`);
    }
    if (u.contents !== undefined && typeof u.contents !== "string") {
      r.errors.push(`${at}.contents: not a string`);
    }
    const contents = typeof u.contents === "string" ? u.contents : "";
    if (contents !== "") {
      unitPaths.add(`/etc/systemd/system/${name}`);
      const parsed = parseUnit(contents);
      if (typeof parsed === "string") {
        r.errors.push(`${at}.contents: invalid unit content: ${parsed}`);
      } else if (u.enabled === true && !hasInstall(parsed)) {
        r.warnings.push(
          `${at}.contents: unit ${
            JSON.stringify(name)
          } is enabled, but has no install section so enable does nothing`,
        );
      }
    }
    const dropins = u.dropins;
    if (dropins === undefined) return;
    if (!Array.isArray(dropins)) {
      r.errors.push(`${at}.dropins: not a list`);
      return;
    }
    const dropinNames = new Set<string>();
    dropins.forEach((d, j) => {
      const dat = `${at}.dropins.${j}`;
      if (!isObj(d)) {
        r.errors.push(`${dat}: not an object`);
        return;
      }
      unusedKeys(d, DROPIN_KEYS, dat, r);
      const dn = typeof d.name === "string" ? d.name : "";
      if (dropinNames.has(dn)) r.errors.push(`${dat}: duplicate entry defined`);
      dropinNames.add(dn);
      if (extension(dn) !== ".conf") {
        r.errors.push(`${dat}.name: invalid systemd drop-in extension`);
      }
      if (typeof d.contents === "string" && d.contents !== "") {
        unitPaths.add(`/etc/systemd/system/${name}.d/${dn}`);
        const parsed = parseUnit(d.contents);
        if (typeof parsed === "string") {
          r.errors.push(`${dat}.contents: invalid unit content: ${parsed}`);
        }
      }
    });
  });
  return unitPaths;
}

/** Go's `path.Ext`. */
function extension(name: string): string {
  for (let i = name.length - 1; i >= 0 && name[i] !== "/"; i--) {
    if (name[i] === ".") return name.slice(i);
  }
  return "";
}

type UnitOption = { section: string; name: string };

/**
 * go-systemd's `unit.Deserialize`, as far as it can fail: a section header
 * must close with `]`, an option line needs a `=` (options before any
 * section and empty section names pass, as they pass there), a line
 * continues after a trailing `\\`. Returns the options or go-systemd's text.
 */
function parseUnit(text: string): UnitOption[] | string {
  const opts: UnitOption[] = [];
  let section = "";
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    if (line.startsWith("[")) {
      if (!line.endsWith("]")) return "unable to find end of section";
      section = line.slice(1, -1);
      continue;
    }
    while (line.endsWith("\\") && i + 1 < lines.length) line = line.slice(0, -1) + lines[++i];
    const eq = line.indexOf("=");
    if (eq < 0) return "unexpected newline encountered while parsing option name";
    opts.push({ section, name: line.slice(0, eq).trim() });
  }
  return opts;
}

/** `ValidateInstallSection`'s test: an [Install] option that enables something. */
function hasInstall(opts: UnitOption[]): boolean {
  return opts.some((o) => o.section === "Install");
}
