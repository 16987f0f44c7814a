/**
 * What `joinkit version` reports: joinkit's own version and commit, and the
 * upstream releases whose rules its judgements follow.
 *
 * @module
 */

/** joinkit's version; kept equal to `package.json`'s and `deno.json`'s by a test. */
export const VERSION = "0.1.0";

/** The Kubernetes release whose kubeadm, client-go and kubelet rules joinkit follows. */
export const KUBERNETES_VERSION = "v1.32.5";

/**
 * The Go release whose `crypto/x509`, `encoding/pem` and `time` verdicts joinkit gives
 * (docs/go-exact.md: Go 1.25 with its security releases).
 */
export const GO_VERSION = "go1.25.5";

// Set by scripts/build.ts (esbuild `define`) in the bundles it makes; absent under `deno run`.
declare const __JOINKIT_COMMIT__: string | undefined;

/**
 * The git commit the running build was made from (`git rev-parse HEAD`, with `-dirty` when the
 * tree had changes), or `undefined` when run from a checkout with `deno run`.
 *
 * @example
 * ```ts
 * import { COMMIT } from "./version.ts";
 * COMMIT; // undefined under deno run; "4dd774a…" in dist/joinkit
 * ```
 */
export const COMMIT: string | undefined = typeof __JOINKIT_COMMIT__ === "string"
  ? __JOINKIT_COMMIT__
  : undefined;
