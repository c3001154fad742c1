// The JavaScript chip parser against the shared contract test vectors (`node --test tests/js/`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadScript, readJson } from "./scripts.mjs";

const P = await loadScript("citation_parser.js");
const VECTORS = readJson("citation_core", "contract", "vectors.json");
const CASES = VECTORS.cases;
const PARSERS = {
  iris: P.parseIris,
  server: P.parseServer,
  client: P.parseClient,
  stored: P.parseStored,
};

test("the vector file covers every pattern", () => {
  assert.ok(CASES.length >= 40);
  for (const name of Object.keys(PARSERS)) {
    assert.ok(CASES.some((c) => c.expect[name].length > 0), name);
    assert.ok(CASES.some((c) => c.expect[name].length === 0), name);
  }
});

for (const c of CASES) {
  for (const [name, parse] of Object.entries(PARSERS)) {
    test(`${name}: ${c.name}`, () => {
      assert.deepEqual(parse(c.text), c.expect[name]);
    });
  }
}

for (const c of [...CASES, ...VECTORS.artemis_cases]) {
  test(`chips as the Artemis client draws them: ${c.name}`, () => {
    assert.deepEqual(P.artemisGroups(c.text), c.expect.artemis);
  });
}

test("spans are code points, also after astral characters", () => {
  const text = "🔥🔥 x[cite:L:7:2:::🚀:Emoji 🚀.]";
  const [m] = P.parseStored(text);
  assert.deepEqual(m.span, [4, Array.from(text).length]);
  assert.equal(m.keyword, "🚀");
  assert.equal(Array.from(text).slice(m.span[0], m.span[1]).join(""), "[cite:L:7:2:::🚀:Emoji 🚀.]");
});

test("parsers can be called repeatedly (no shared lastIndex state)", () => {
  const text = "a[cite:L:12:3:::Split:Divides.] b[cite:L:12:3::!1]";
  for (let i = 0; i < 3; i += 1) {
    assert.equal(P.parseStored(text).length, 1);
    assert.equal(P.parseIris(text).length, 1);
    assert.equal(P.parseServer(text).length, 1);
  }
});

test("stored: version split only from a summary with a colon", () => {
  assert.equal(P.parseStored("[cite:L:12:3:::Split:Ratio: 2:1:vt7]")[0].version, "vt7");
  assert.equal(P.parseStored("[cite:L:12:3:::Split:Ratio: 2:1:vt7]")[0].summary, "Ratio: 2:1");
  assert.equal(P.parseStored("[cite:L:12:3:::Split:vt7]")[0].version, null);
  assert.equal(P.parseClient("[cite:L:12:3:::Split:x:vt7]")[0].version, null);
});

test("parseMarker accepts exactly one whole stored marker", () => {
  assert.equal(P.parseMarker("[cite:L:12:3:::Split:Divides.:va2]").version, "va2");
  assert.equal(P.parseMarker("[cite:L:12:3::!1]"), null);
  assert.equal(P.parseMarker("x[cite:L:12:3:::Split:Divides.]"), null);
  assert.equal(P.parseMarker("[cite:L:12:3:::a:b][cite:L:12:3:::a:b]"), null);
  assert.equal(P.parseMarker("[cite:L:12:3::Split]"), null);
});

test("citationKind: faq, video, slide, source as the Artemis client classifies them", () => {
  const kind = (raw) => P.citationKind(P.parseMarker(raw));
  assert.equal(kind("[cite:F:17::::Exam:Open book.]"), "faq");
  assert.equal(kind("[cite:L:12::75:92:Recursion:Tree.]"), "video");
  assert.equal(kind("[cite:L:12:3:::Split:Divides.]"), "slide");
  assert.equal(kind("[cite:L:12::::Split:Divides.]"), "source");
  // any non-empty text counts: start or end makes a video chip, page a slide chip
  assert.equal(kind("[cite:L:12:abc:::Split:Divides.]"), "slide");
  assert.equal(kind("[cite:L:12::00.01::Split:Divides.]"), "video");
  assert.equal(kind("[cite:L:12:7::180:Split:Divides.]"), "video");
});

const cite = (raw) => ({ kind: "cite", raw });
const text = (t) => ({ kind: "text", text: t });
const A = "[cite:L:12:3:::Split:Divides the list.]";
const B = "[cite:L:12:4:::Merge:Joins the halves.:va2]";
const BROKEN = "[cite:L:12:3::Split]";

test("groupCandidates: adjacent and whitespace-separated candidates form one group", () => {
  const groups = P.groupCandidates([text("Sorted. "), cite(A), text(" \n "), cite(B), text(" Done.")]);
  assert.equal(groups.length, 1);
  assert.equal(groups[0].first, 1);
  assert.equal(groups[0].last, 3);
  assert.deepEqual(groups[0].indices, [1, 3]);
  assert.deepEqual(groups[0].raws, [A, B]);
  assert.deepEqual(
    groups[0].members.map((m) => m.keyword),
    ["Split", "Merge"],
  );
  assert.deepEqual(P.groupCandidates([cite(A), cite(B)])[0].indices, [0, 1]);
});

test("groupCandidates: text or elements between candidates split groups", () => {
  const groups = P.groupCandidates([cite(A), text(" and "), cite(B), { kind: "other" }, cite(A)]);
  assert.deepEqual(
    groups.map((g) => g.indices),
    [[0], [2], [4]],
  );
  assert.ok(groups.every((g) => g.members && g.members.length === 1));
});

test("groupCandidates: trailing whitespace does not belong to the group", () => {
  const [g] = P.groupCandidates([cite(A), text("  ")]);
  assert.equal(g.last, 0);
});

test("groupCandidates: a candidate the client cannot read stays text and ends the group", () => {
  // the Artemis client never sees it as a citation: it is text that is not whitespace
  const groups = P.groupCandidates([cite(A), text(" "), cite(BROKEN), text(" "), cite(B)]);
  assert.deepEqual(
    groups.map((g) => [g.indices, g.members === null]),
    [[[0], false], [[2], true], [[4], false]],
  );
  assert.deepEqual(groups[1].raws, [BROKEN]);
});

test("groupCandidates: intermediate markers are not chips", () => {
  const [g] = P.groupCandidates([cite("[cite:L:12:3::!1]")]);
  assert.equal(g.members, null);
});
