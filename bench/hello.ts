/**
 * The start-up baseline: a hello-world, run and built the same way as joinkit.
 *
 * @module
 */

import process from "node:process";

process.stdout.write("hello\n");
