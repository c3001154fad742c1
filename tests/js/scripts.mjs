// Loads the chip renderer's plain scripts for the node tests.
//
// The scripts have no imports and no `export` (citation_core/lms/chips.py concatenates them into
// one component module), so evaluate a script's source with a CommonJS-like `module` and read what
// its `module.exports` guard hands out. `scope` supplies the names the script expects from the
// scripts before it in the module (e.g. `citationKind` for chip_model.js).
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const CHIPS = join(ROOT, "citation_core", "components", "chips");

export function loadScript(name, scope = {}) {
  const mod = { exports: {} };
  const names = Object.keys(scope);
  new Function("module", ...names, readFileSync(join(CHIPS, name), "utf8"))(mod, ...names.map((n) => scope[n]));
  return mod.exports;
}

export function readJson(...parts) {
  return JSON.parse(readFileSync(join(ROOT, ...parts), "utf8"));
}
