/**
 * Where a node payload may put a user's file (today: the discovery
 * kubeconfig of file discovery). Both consumers are unforgiving in
 * different ways: Ignition (spec v3) refuses a path that is relative or not
 * fully simplified and two entries for one path, and cannot write a file
 * under a file; cloud-init takes `os.path.abspath` of each `write_files`
 * path and lets a later entry for the same path silently replace an earlier
 * one. kubeadm join's preflight then refuses to start when a file it will
 * write already exists. So a path is refused unless it is absolute, clean,
 * and clear of every file the payload, its commands and kubeadm join write
 * (and of their directories).
 *
 * @module
 */

/**
 * Go's `path.Clean`: the shortest equivalent path by purely lexical
 * processing (`//` → `/`, `.` dropped, `x/..` dropped, no trailing `/`).
 * Ignition's `validatePath` refuses a path `p` with `path.Clean(p) !== p`.
 *
 * @example
 * ```ts
 * goPathClean("/etc//kubernetes/./a/../discovery.conf/"); // "/etc/kubernetes/discovery.conf"
 * goPathClean(""); // "."
 * ```
 */
export function goPathClean(p: string): string {
  if (p === "") return ".";
  const rooted = p.startsWith("/");
  const out: string[] = [];
  for (const part of p.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!rooted) out.push("..");
      continue;
    }
    out.push(part);
  }
  const joined = out.join("/");
  if (rooted) return "/" + joined;
  return joined === "" ? "." : joined;
}

/** The payload formats (CABPK's `format` names). */
export type PayloadFormat = "cloud-config" | "ignition";

/** A file a payload, its commands or kubeadm join write on the node. */
export interface ReservedFile {
  path: string;
  /** What it is, for messages. */
  what: string;
  /** Who writes it: the payload (and its commands) or kubeadm join. */
  writer?: "payload" | "kubeadm";
  /**
   * The name of kubeadm join's preflight check that refuses to run when
   * something is already there (`FileAvailable-…`/`DirAvailable-…`).
   */
  preflight?: string;
  /** The preflight check wants an empty or absent directory here. */
  directory?: boolean;
}

/** What decides which files are reserved. */
export interface ReservedOptions {
  format: PayloadFormat;
  controlPlane: boolean;
  /** The JoinConfiguration's `caCertPath` (default `/etc/kubernetes/pki/ca.crt`). */
  caCertPath?: string;
}

const DEFAULT_CA_CERT_PATH = "/etc/kubernetes/pki/ca.crt";
const SENTINEL = "/run/cluster-api/bootstrap-success.complete";

/** kubeadm's check name: `FileAvailable-` + the path with `/` as `-`. */
const checkName = (kind: "FileAvailable" | "DirAvailable", path: string) =>
  `${kind}-${path.replaceAll("/", "-")}`;

/**
 * Every file the payload of `opts.format` writes, its commands write, and
 * kubeadm join writes or insists on finding absent (kubeadm v1.32
 * `preflight.JoinNodeChecks` and, for a control plane, `InitNodeChecks`
 * with its static Pod manifests and the default etcd data directory).
 *
 * @example
 * ```ts
 * reservedFiles({ format: "cloud-config", controlPlane: false })[0]!.path; // "/run/kubeadm/kubeadm-join-config.yaml"
 * ```
 */
export function reservedFiles(opts: ReservedOptions): ReservedFile[] {
  const files: ReservedFile[] = opts.format === "cloud-config"
    ? [
      { path: "/run/kubeadm/kubeadm-join-config.yaml", what: "the JoinConfiguration" },
      { path: "/run/cluster-api/placeholder", what: "CABPK's placeholder file" },
      { path: SENTINEL, what: "the bootstrap sentinel (runcmd)" },
    ]
    : [
      { path: "/etc/kubeadm.sh", what: "the join script" },
      { path: "/etc/kubeadm.yml", what: "the JoinConfiguration" },
      { path: "/etc/systemd/system/kubeadm.service", what: "the kubeadm.service unit" },
      { path: SENTINEL, what: "the bootstrap sentinel (/etc/kubeadm.sh)" },
      { path: "/tmp/kubeadm.yml", what: "the JoinConfiguration moved after the join" },
    ];
  for (const p of ["/etc/kubernetes/kubelet.conf", "/etc/kubernetes/bootstrap-kubelet.conf"]) {
    files.push({
      path: p,
      what: "a kubeconfig",
      writer: "kubeadm",
      preflight: checkName("FileAvailable", p),
    });
  }
  files.push(
    { path: "/var/lib/kubelet/config.yaml", what: "the kubelet configuration", writer: "kubeadm" },
    { path: "/var/lib/kubelet/kubeadm-flags.env", what: "the kubelet flags", writer: "kubeadm" },
  );
  if (!opts.controlPlane) {
    const ca = opts.caCertPath || DEFAULT_CA_CERT_PATH;
    files.push({
      path: ca,
      what: "the cluster CA (caCertPath)",
      writer: "kubeadm",
      preflight: checkName("FileAvailable", ca),
    });
  } else {
    for (const c of ["kube-apiserver", "kube-controller-manager", "kube-scheduler", "etcd"]) {
      const p = `/etc/kubernetes/manifests/${c}.yaml`;
      files.push({
        path: p,
        what: "a static Pod manifest",
        writer: "kubeadm",
        preflight: checkName("FileAvailable", p),
      });
    }
    files.push({
      path: "/var/lib/etcd",
      what: "etcd's data directory (local etcd's default dataDir)",
      writer: "kubeadm",
      preflight: checkName("DirAvailable", "/var/lib/etcd"),
      directory: true,
    });
  }
  return files;
}

const isUnder = (p: string, dir: string) => dir === "/" ? p !== "/" : p.startsWith(dir + "/");

/**
 * Why a user file may not be written at `path` by a payload, or undefined
 * when it may: empty, a NUL, relative, not fully simplified (Ignition's
 * texts), one of the {@link reservedFiles} (or `earlier` user files), a
 * directory one of them needs, or under one of them. A kubeadm preflight
 * clash named (lower-cased) in `ignorePreflightErrors`, or `all`, is let
 * through, as kubeadm lets it through.
 *
 * @example
 * ```ts
 * userFilePathProblem("/run/kubeadm//kubeadm-join-config.yaml", { format: "cloud-config", controlPlane: false });
 * // "path is not fully simplified (Ignition refuses it; cloud-init writes /run/kubeadm/kubeadm-join-config.yaml)"
 * ```
 */
export function userFilePathProblem(
  path: string,
  opts: ReservedOptions & { ignorePreflightErrors?: readonly string[] },
  earlier: readonly ReservedFile[] = [],
): string | undefined {
  if (path === "") return "path not specified";
  if (path.includes("\0")) return "a path cannot hold a NUL byte";
  if (!path.startsWith("/")) return "path not absolute";
  const clean = goPathClean(path);
  if (clean !== path) {
    return `path is not fully simplified (Ignition refuses it; cloud-init writes ${clean})`;
  }
  // /var/run is a link to /run on every current distribution (FHS 3.0): the same files.
  const viaLink = path === "/var/run" || path.startsWith("/var/run/");
  const where = viaLink ? "/run" + path.slice("/var/run".length) : path;
  const link = viaLink ? " (/var/run is a link to /run)" : "";
  const ignored = new Set((opts.ignorePreflightErrors ?? []).map((n) => n.toLowerCase()));
  for (const r of [...earlier, ...reservedFiles(opts)]) {
    const hit = r.path === where || (r.directory === true && isUnder(where, r.path));
    if (hit && r.preflight !== undefined) {
      if (ignored.has("all") || ignored.has(r.preflight.toLowerCase())) continue;
      return `kubeadm join's preflight check ${r.preflight} fails when ${
        r.directory ? "this directory holds a file" : "this file exists"
      } (kubeadm join writes ${r.what} there; nodeRegistration.ignorePreflightErrors can waive it)`;
    }
    if (r.path === where && r.writer === "kubeadm") return `kubeadm join writes ${r.what} there`;
    if (r.path === where && viaLink) {
      return `the payload also writes ${r.what} at ${r.path}${link}: one write would replace the other`;
    }
    if (r.path === where) {
      return `the payload also writes ${r.what} there: ${
        opts.format === "cloud-config"
          ? "cloud-init would silently keep only the later write_files entry"
          : "Ignition refuses duplicate paths"
      }`;
    }
    if (isUnder(r.path, where)) {
      return `${r.path} (${r.what}) needs this path to be a directory${link}`;
    }
    if (isUnder(where, r.path)) return `${r.path} (${r.what}) is a file, not a directory${link}`;
  }
  return undefined;
}
