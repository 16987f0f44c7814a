/**
 * The one place that loads `@peculiar/x509`, which needs `reflect-metadata`
 * loaded first and a WebCrypto provider. Import X.509 through this module only,
 * and only from code paths that need it: it is the heaviest module joinkit has.
 *
 * @module
 */

import "reflect-metadata";
import * as x509 from "@peculiar/x509";

x509.cryptoProvider.set(globalThis.crypto);

export { x509 };
