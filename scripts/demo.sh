#!/bin/sh
# The README's main job on a built-in example: see README "Quick start".
set -eu
cd "$(dirname "$0")/.."
exec node_modules/.bin/deno run -A --quiet main.ts token generate --count 3
