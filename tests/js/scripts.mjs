// Loads the chip renderer's ES modules (citation_core/components/chips) for the node tests.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const CHIPS = join(ROOT, "citation_core", "components", "chips");

/** The module `name` of the chip renderer's folder, as the browser loads it. */
export function loadScript(name) {
  return import(pathToFileURL(join(CHIPS, name)).href);
}

export function readJson(...parts) {
  return JSON.parse(readFileSync(join(ROOT, ...parts), "utf8"));
}
