/**
 * `@peculiar/x509` for tests and the benchmark's inputs (a second X.509
 * implementation to compare joinkit's DER builders with; no command loads it).
 * It needs `reflect-metadata` loaded first and a WebCrypto provider.
 *
 * @module
 */

import "reflect-metadata";
import * as x509 from "@peculiar/x509";

x509.cryptoProvider.set(globalThis.crypto);

export { x509 };
