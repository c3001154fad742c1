// The chip model's clock against the shared vectors in tests/clock_vectors.json (`node --test tests/js/`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadScript, readJson } from "./scripts.mjs";

const { clock } = await loadScript("chip_model.js");
const VECTORS = readJson("tests", "clock_vectors.json");

test("the vector file covers both formats and the empty text", () => {
  assert.ok(VECTORS.length >= 12);
  assert.ok(VECTORS.some((v) => v.seconds < 3600 && v.text !== ""));
  assert.ok(VECTORS.some((v) => v.seconds >= 3600));
  assert.ok(VECTORS.some((v) => v.text === ""));
  assert.ok(VECTORS.some((v) => !Number.isInteger(v.seconds)));
});

for (const { seconds, text } of VECTORS) {
  test(`clock(${seconds}) is ${JSON.stringify(text)}`, () => {
    assert.equal(clock(seconds), text);
  });
}

test("non-finite and non-number values give an empty text", () => {
  for (const value of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, null, undefined, "75"]) {
    assert.equal(clock(value), "", String(value));
  }
});
