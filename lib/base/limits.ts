/**
 * Bounds on what joinkit reads, kept apart from heavy modules so any command
 * can import them cheaply.
 *
 * @module
 */

/** Largest input joinkit reads, in bytes. */
export const MAX_INPUT_BYTES = 16 * 1024 * 1024;

/** Most objects one input may hold. */
export const MAX_OBJECTS = 100_000;
