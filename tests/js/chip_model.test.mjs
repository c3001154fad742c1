// The chip model: what a chip shows and sends for each kind of marker (`node --test tests/js/`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadScript } from "./scripts.mjs";

const P = await loadScript("citation_parser.js");
const M = await loadScript("chip_model.js");

const UNITS = {
  12: {
    lectureTitle: "Algorithms and Data Structures",
    lectureUnitTitle: "Sorting: Merge Sort",
    attachmentVersion: 2,
    videoVersion: 13,
    hasDeck: true,
    hasVideo: true,
    slides: {
      1: { printed: null, title: "Merge Sort" },
      2: { printed: null, title: "Agenda" },
      3: { printed: "1", title: "Merge step" },
      4: { printed: "2", title: "Split" },
      5: { printed: "3", title: "Cost" },
      6: { printed: null, title: "" },
      7: { printed: 7, title: "Numbered by a number" },
    },
  },
  7: { lectureUnitTitle: "归并排序", attachmentVersion: 1, videoVersion: null, hasDeck: true, hasVideo: false },
  8: { lectureUnitTitle: "Slides only", attachmentVersion: 1, hasDeck: false, hasVideo: false, slides: {} },
};
const FAQS = { 17: { question: "Is the exam open book?" } };
const STALE_TEXT = "The material changed since this answer was written";
const NEWER_TEXT = "This citation comes from another copy of the material, newer than this one";

const item = (raw, units = UNITS, faqs = FAQS) => {
  const marker = P.parseMarker(raw);
  assert.ok(marker, raw);
  return M.describe(marker, units, faqs);
};

const SLIDE = "[cite:L:12:3:::Merge step:Combines two sorted halves.:va2]";
const SLIDE2 = "[cite:L:12:4:::Split:Divides the list.:va2]";
const UNNUMBERED = "[cite:L:12:2:::Plan:What the lecture covers.:va2]";
const UNTITLED = "[cite:L:12:6:::Blank:A slide without number or title.:va2]";
const STALE = "[cite:L:12:5:::Cost:Each level does linear work.:va1]";
const NEWER = "[cite:L:12:5:::Later:Cited in a newer copy of the deck.:va3]";
const VIDEO = "[cite:L:12::75:92:Recursion tree:The recursion tree.:vt13]";
const FAQ = "[cite:F:17::::Exam:The exam is open book.:va1]";
const UNIT = "[cite:L:12::::Unit:No position.]";

// ---- describe ------------------------------------------------------------------------------------

test("describe: a slide with a printed number is named by it, never by the deck index", () => {
  const i = item(SLIDE);
  assert.equal(i.kind, "slide");
  assert.equal(i.keyword, "Merge step");
  assert.equal(i.summary, "Combines two sorted halves.");
  assert.equal(i.page, 3);
  assert.equal(i.where, "Slide 1");
  assert.deepEqual(i.heading, { text: "Slide 1", title: "" });
  assert.equal(i.spoken, "slide 1");
  assert.equal(i.stale, false);
  assert.equal(i.unavailable, false);
  assert.equal(item("[cite:L:12:7:::N:s.]").where, "Slide 7");
});

test("describe: an unnumbered slide is named by its place in the deck and its title, kept apart from the header words", () => {
  const i = item(UNNUMBERED);
  assert.equal(i.where, "Page 2 of 7 “Agenda”");
  assert.deepEqual(i.heading, { text: "Page 2 of 7", title: "Agenda" });
  assert.equal(i.spoken, "page 2 of 7 “Agenda”");
  assert.equal(i.page, 2);
});

test("describe: an unnumbered slide without a title", () => {
  const i = item(UNTITLED);
  assert.equal(i.where, "Page 6 of 7");
  assert.deepEqual(i.heading, { text: "Page 6 of 7", title: "" });
  assert.equal(i.spoken, "page 6 of 7");
});

test("describe: unnumbered slides that share their title are named by their place alone", () => {
  const slides = {};
  for (let p = 1; p <= 20; p += 1) slides[p] = { printed: null, title: p === 2 ? "HPC in Python" : "Cython" };
  const units = { 12: { ...UNITS[12], slides } };
  const cython = item("[cite:L:12:12:::Types:cdef declares a C type.:va2]", units);
  assert.equal(cython.where, "Page 12 of 20");
  assert.equal(M.actionHint(cython), "Click to open page 12 of 20");
  assert.equal(item("[cite:L:12:2:::HPC:Why Python is slow.:va2]", units).where, "Page 2 of 20 “HPC in Python”");
});

test("describe: an unknown slide is just \"Slide\" and has no spoken position", () => {
  for (const raw of [
    "[cite:L:12:9:::Lost:Not in the slides table.:va2]",
    "[cite:L:7:3:::Lost:The unit has no slides data.:va1]",
    "[cite:L:99:3:::Lost:Unknown unit.]",
    STALE, // the index points into an older deck
  ]) {
    const i = item(raw);
    assert.equal(i.kind, "slide", raw);
    assert.equal(i.where, "Slide", raw);
    assert.equal(i.spoken, "", raw);
    assert.deepEqual(i.slide, { printed: "", title: "", known: false, page: null, pages: 0, titleUnique: false }, raw);
  }
});

test("describe: a video is named by its time range", () => {
  const i = item(VIDEO);
  assert.equal(i.kind, "video");
  assert.equal(i.where, "Video · 1:15–1:32");
  assert.equal(i.spoken, "1:15–1:32");
  assert.equal(i.start, 75);
  assert.equal(i.end, 92);
  assert.equal(item("[cite:L:12::75::R:s.]").where, "Video · 1:15");
  assert.equal(item("[cite:L:12::75:75:R:s.]").where, "Video · 1:15");
  assert.equal(item("[cite:L:12::75:60:R:s.]").where, "Video · 1:15");
  assert.equal(item("[cite:L:12::3725:3800:R:s.]").where, "Video · 1:02:05–1:03:20");
});

test("describe: an FAQ", () => {
  const i = item(FAQ);
  assert.equal(i.kind, "faq");
  assert.equal(i.keyword, "Exam");
  assert.equal(i.where, "FAQ");
  assert.equal(i.spoken, "");
  assert.equal(i.stale, false, "FAQs are never stale");
  assert.equal(i.unit, null);
  assert.deepEqual(i.faq, { question: "Is the exam open book?" });
});

test("describe: a lecture citation without a position is a source", () => {
  const i = item(UNIT);
  assert.equal(i.kind, "source");
  assert.equal(i.where, "Source");
  assert.equal(i.spoken, "");
});

test("describe: keyword fallbacks", () => {
  assert.equal(item("[cite:F:17:::::The exam is open book.]").keyword, "FAQ");
  assert.equal(item("[cite:L:12:3::::Only a summary.]").keyword, "Source");
  assert.equal(item("[cite:L:12:3:::   :Blank keyword.]").keyword, "Source");
});

test("describe: missing or malformed data gives an empty unit, not an error", () => {
  for (const units of [null, [], "x", { 12: null }]) {
    const i = item(SLIDE, units);
    assert.deepEqual(i.unit, {});
    assert.equal(i.where, "Slide");
  }
  assert.deepEqual(item(FAQ, UNITS, null).faq, {});
});

// ---- staleness ---------------------------------------------------------------------------------

test("isStale: va compares the deck version, vt the transcript version; only an older one is stale", () => {
  const unit = UNITS[12];
  assert.equal(M.isStale("va1", unit), true);
  assert.equal(M.isStale("va2", unit), false);
  assert.equal(M.isStale("va3", unit), false, "a newer stored version comes from another copy");
  assert.equal(M.isStale("vt12", unit), true);
  assert.equal(M.isStale("vt13", unit), false);
  assert.equal(M.isStale("vt14", unit), false);
});

test("versionStanding: older, newer or the same as the unit's material", () => {
  const unit = UNITS[12];
  assert.deepEqual(["va1", "va2", "va3"].map((v) => M.versionStanding(v, unit)), ["older", "", "newer"]);
  assert.deepEqual(["vt12", "vt13", "vt14"].map((v) => M.versionStanding(v, unit)), ["older", "", "newer"]);
  assert.equal(M.versionStanding("va3", { attachmentVersion: "2" }), "newer", "a numeric string counts");
  for (const v of [null, "", "vx3", "va"]) assert.equal(M.versionStanding(v, unit), "", String(v));
  assert.equal(M.versionStanding("vt3", UNITS[7]), "", "videoVersion null");
});

test("isStale: no version, an unknown format or no current version is current", () => {
  assert.equal(M.isStale(null, UNITS[12]), false);
  assert.equal(M.isStale("", UNITS[12]), false);
  assert.equal(M.isStale("vx1", UNITS[12]), false);
  assert.equal(M.isStale("va1x", UNITS[12]), false);
  assert.equal(M.isStale("vt1", UNITS[7]), false, "videoVersion null");
  assert.equal(M.isStale("va0", null), false);
  for (const current of [undefined, null, "", "abc"]) {
    assert.equal(M.isStale("va0", { attachmentVersion: current }), false, String(current));
  }
  assert.equal(M.isStale("va1", { attachmentVersion: "2" }), true, "a numeric string counts");
});

test("stale vs current chips", () => {
  assert.equal(item(STALE).stale, true);
  assert.equal(item(SLIDE).stale, false);
  assert.equal(item("[cite:L:12::75:92:R:Old transcript.:vt12]").stale, true);
  assert.equal(item("[cite:L:12::75:92:R:No version.]").stale, false);
});

// ---- click value -------------------------------------------------------------------------------

test("clickValue: a slide sends its deck index", () => {
  assert.deepEqual(M.clickValue(item(SLIDE), "n1"), { kind: "slide", unitId: "12", page: 3, nonce: "n1" });
  // a unit without slides data cannot tell: the position it was cited at
  assert.deepEqual(M.clickValue(item("[cite:L:7:3:::k:s:va1]"), "n2"), { kind: "slide", unitId: "7", page: 3, nonce: "n2" });
});

test("clickValue: a chip of an unknown unit sends nothing and never names a position", () => {
  const lost = item("[cite:L:99:3:::Lost:x]");
  assert.equal(lost.status, "unknown");
  assert.equal(M.clickValue(lost, "n"), null);
  assert.equal(M.isClickable(lost), false);
  assert.equal(M.actionHint(lost), "");
  assert.deepEqual(lost.note, { level: "error", text: "This unit is not in this course: the chip cannot open it" });
  assert.equal(M.ariaLabel([lost]), "Slide source: Lost. This unit is not in this course: the chip cannot open it");
  for (const units of [{}, null, { 99: {} }]) assert.equal(M.clickValue(item("[cite:L:99::75:92:V:x]", units), "n"), null);
});

test("clickValue: a video sends its start and end", () => {
  assert.deepEqual(M.clickValue(item(VIDEO), "n"), { kind: "video", unitId: "12", start: 75, end: 92, nonce: "n" });
  assert.deepEqual(M.clickValue(item("[cite:L:12::75::R:s.]"), "n"), {
    kind: "video",
    unitId: "12",
    start: 75,
    end: null,
    nonce: "n",
  });
});

test("clickValue: a changed chip (stored version differs) opens the unit and says why", () => {
  assert.deepEqual(M.clickValue(item(STALE), "n"), { kind: "unit", unitId: "12", stale: true, reason: "changed", cited: "slide", nonce: "n" });
  assert.deepEqual(item(STALE).note, { level: "warning", text: STALE_TEXT });
});

test("clickValue: a chip from a newer copy of the material opens the unit and says so, not stale", () => {
  const newer = item(NEWER);
  assert.equal(newer.status, "newer");
  assert.equal(newer.stale, false);
  assert.equal(newer.newer, true);
  assert.deepEqual(M.clickValue(newer, "n"), { kind: "unit", unitId: "12", stale: false, reason: "newer", cited: "slide", nonce: "n" });
  assert.deepEqual(newer.note, { level: "warning", text: NEWER_TEXT });
  assert.equal(newer.where, "Slide", "the deck index points into another deck: no slide name");
  assert.equal(M.actionHint(newer), "Click to open the unit");
  assert.equal(M.ariaLabel([newer]), `Slide source: Later. ${NEWER_TEXT}`);
  assert.equal(M.ariaLabel([item(SLIDE), newer]), `Slide source: Merge step, slide 1, and 1 more. ${NEWER_TEXT}`);
  assert.equal(M.anyNewer([item(SLIDE), newer]), true);
  assert.equal(M.anyStale([item(SLIDE), newer]), false);
});

test("clickValue: a gone deck, video or slide opens the unit with an error; no position opens the unit", () => {
  const gone = { kind: "unit", unitId: "12", stale: false, reason: "gone", cited: "slide", nonce: "n" };
  assert.deepEqual(M.clickValue(item(UNIT), "n"), { ...gone, reason: "position", cited: "source" });
  const bare = { 12: { ...UNITS[12], hasDeck: false, hasVideo: false } };
  assert.deepEqual(M.clickValue(item(SLIDE, bare), "n"), gone);
  assert.deepEqual(M.clickValue(item(VIDEO, bare), "n"), { ...gone, cited: "video" });
  assert.equal(item(SLIDE, bare).unavailable, true);
  assert.equal(item(SLIDE, bare).status, "gone");
  assert.deepEqual(item(SLIDE, bare).note, { level: "error", text: "The cited deck no longer exists: a click opens the unit" });
  assert.deepEqual(item(VIDEO, bare).note, { level: "error", text: "The cited video no longer exists: a click opens the unit" });
  assert.deepEqual(M.clickValue(item("[cite:L:8:1:::Deckless:x]"), "n"), { ...gone, unitId: "8" });
  // a deck index the current deck does not have
  const lostPage = item("[cite:L:12:9:::Lost:x:va2]");
  assert.equal(lostPage.status, "gone");
  assert.deepEqual(M.clickValue(lostPage, "n"), gone);
  assert.equal(lostPage.note.text, "The cited slide is no longer in the deck: a click opens the unit");
  // gone wins over changed: the deck is not there to open at any version
  assert.equal(item(STALE, bare).status, "gone");
});

test("status: current, changed, gone, unknown, unreleased, hidden", () => {
  const flagged = (extra) => ({ 12: { ...UNITS[12], ...extra } });
  assert.equal(item(SLIDE).status, "current");
  assert.equal(item(VIDEO).status, "current");
  assert.equal(item(STALE).status, "changed");
  assert.equal(item(FAQ).status, "faq");
  assert.equal(item("[cite:L:99:3:::k:s]").status, "unknown");
  assert.equal(item(SLIDE, flagged({ released: false })).status, "unreleased");
  assert.equal(item(VIDEO, flagged({ released: false })).status, "unreleased");
  assert.equal(item(SLIDE, flagged({ released: true })).status, "current");
  assert.equal(item(SLIDE, flagged({ hiddenPages: [3] })).status, "hidden");
  assert.equal(item(SLIDE, flagged({ hiddenPages: ["3"] })).status, "hidden", "indices as strings count");
  assert.equal(item(SLIDE2, flagged({ hiddenPages: [3] })).status, "current");
  assert.equal(item(VIDEO, flagged({ hiddenPages: [3] })).status, "current", "hidden pages hide slides only");
  assert.equal(item(SLIDE, flagged({ hiddenPages: "3" })).status, "current", "malformed flags are ignored");
});

test("isBlocked: lecture chips that cannot be opened at all, never FAQs or chips that open the unit", () => {
  assert.equal(M.isBlocked(item("[cite:L:99:3:::k:s]")), true);
  assert.equal(M.isBlocked(item(SLIDE, { 12: { ...UNITS[12], released: false } })), true);
  assert.equal(M.isBlocked(item(SLIDE, { 12: { ...UNITS[12], hiddenPages: [3] } })), true);
  for (const raw of [FAQ, SLIDE, STALE, UNIT]) assert.equal(M.isBlocked(item(raw)), false, raw);
  assert.equal(M.isBlocked(item(SLIDE, { 12: { ...UNITS[12], hasDeck: false } })), false, "gone opens the unit");
});

test("unreleased units and hidden slides are not clickable and say why", () => {
  const unreleased = item(SLIDE, { 12: { ...UNITS[12], released: false } });
  assert.equal(M.clickValue(unreleased, "n"), null);
  assert.equal(M.actionHint(unreleased), "");
  assert.deepEqual(unreleased.note, { level: "warning", text: "This unit is not released yet: the chip cannot open it" });
  const hidden = item(SLIDE, { 12: { ...UNITS[12], hiddenPages: [3] } });
  assert.equal(M.clickValue(hidden, "n"), null);
  assert.deepEqual(hidden.note, { level: "warning", text: "This slide is hidden: the chip cannot open it" });
  assert.equal(M.ariaLabel([hidden]), "Slide source: Merge step, slide 1. This slide is hidden: the chip cannot open it");
});

test("clickValue: an FAQ sends nothing", () => {
  assert.equal(M.clickValue(item(FAQ), "n"), null);
  assert.equal(M.isClickable(item(FAQ)), false);
  for (const raw of [SLIDE, VIDEO, STALE, UNIT]) assert.equal(M.isClickable(item(raw)), true, raw);
  assert.equal(item(FAQ).note, null);
});

// ---- hints -------------------------------------------------------------------------------------

test("actionHint per kind", () => {
  assert.equal(M.actionHint(item(SLIDE)), "Click to open slide 1");
  assert.equal(M.actionHint(item(UNNUMBERED)), "Click to open page 2 of 7 “Agenda”");
  assert.equal(M.actionHint(item(UNTITLED)), "Click to open page 6 of 7");
  assert.equal(M.actionHint(item("[cite:L:7:3:::Lost:x:va1]")), "Click to open the slide");
  assert.equal(M.actionHint(item("[cite:L:12:9:::Lost:x:va2]")), "Click to open the unit");
  assert.equal(M.actionHint(item(VIDEO)), "Click to play from 1:15");
  assert.equal(M.actionHint(item("[cite:L:12::3725:3800:R:s.]")), "Click to play from 1:02:05");
  assert.equal(M.actionHint(item(STALE)), "Click to open the unit");
  assert.equal(M.actionHint(item(UNIT)), "Click to open the unit");
  assert.equal(M.actionHint(item(SLIDE, { 12: { ...UNITS[12], hasDeck: false } })), "Click to open the unit");
  assert.equal(M.actionHint(item(VIDEO, { 12: { ...UNITS[12], hasVideo: false } })), "Click to open the unit");
  assert.equal(M.actionHint(item(FAQ)), "");
});

// ---- aria labels and groups --------------------------------------------------------------------

test("ariaLabel: kind, keyword and the position people know", () => {
  assert.equal(M.ariaLabel([item(SLIDE)]), "Slide source: Merge step, slide 1");
  assert.equal(M.ariaLabel([item(UNNUMBERED)]), "Slide source: Plan, page 2 of 7 “Agenda”");
  assert.equal(M.ariaLabel([item(UNTITLED)]), "Slide source: Blank, page 6 of 7");
  assert.equal(M.ariaLabel([item("[cite:L:7:3:::Lost:x:va1]")]), "Slide source: Lost");
  assert.equal(M.ariaLabel([item(VIDEO)]), "Video source: Recursion tree, 1:15–1:32");
  assert.equal(M.ariaLabel([item(FAQ)]), "FAQ source: Exam");
});

test("ariaLabel: a stale chip says so", () => {
  assert.equal(M.ariaLabel([item(STALE)]), `Slide source: Cost. ${STALE_TEXT}`);
});

test("groups: the first member names the chip, \"+N\" counts the others", () => {
  const pair = [item(SLIDE), item(SLIDE2)];
  assert.equal(M.ariaLabel(pair), "Slide source: Merge step, slide 1, and 1 more");
  assert.equal(M.moreLabel(pair), "+1");
  assert.equal(M.moreLabel([item(SLIDE), item(VIDEO), item(FAQ)]), "+2");
  assert.equal(M.moreLabel([item(SLIDE)]), "");
  const withStale = [item(VIDEO), item(STALE), item(FAQ)];
  assert.equal(M.ariaLabel(withStale), `Video source: Recursion tree, 1:15–1:32, and 2 more. ${STALE_TEXT}`);
  assert.equal(M.anyStale(withStale), true);
  assert.equal(M.anyStale(pair), false);
});

test("groups: paging through the members", () => {
  assert.equal(M.pagerText(0, 2), "1 / 2");
  assert.equal(M.pagerText(2, 3), "3 / 3");
  assert.equal(M.steppedIndex(0, 1, 3), 1);
  assert.equal(M.steppedIndex(2, 1, 3), 2);
  assert.equal(M.steppedIndex(0, -1, 3), 0);
  assert.equal(M.steppedIndex(1, -1, 3), 0);
});

// ---- tooltip text ------------------------------------------------------------------------------

test("summaryText: the summary, or a placeholder", () => {
  assert.deepEqual(M.summaryText(item(SLIDE)), { text: "Combines two sorted halves.", empty: false });
  assert.deepEqual(M.summaryText(item("[cite:L:12:3:::k:]")), { text: "No summary available.", empty: true });
});

test("detailRows: unit and lecture, or the FAQ's question; missing ones say so", () => {
  assert.deepEqual(M.detailRows(item(SLIDE)), [
    { label: "Unit", value: "Sorting: Merge Sort", missing: false },
    { label: "Lecture", value: "Algorithms and Data Structures", missing: false },
  ]);
  assert.deepEqual(M.detailRows(item("[cite:L:7:3:::k:s]")), [{ label: "Unit", value: "归并排序", missing: false }]);
  assert.deepEqual(M.detailRows(item("[cite:L:99:3:::k:s]")), [
    { label: "Unit", value: "Unit 99 (not found)", missing: true },
  ]);
  assert.deepEqual(M.detailRows(item(FAQ)), [{ label: "Question", value: "Is the exam open book?", missing: false }]);
  assert.deepEqual(M.detailRows(item("[cite:F:18::::k:s]")), [
    { label: "Question", value: "FAQ 18 (not found)", missing: true },
  ]);
});

test("slide wording: one phrase, heading and joined header per name", () => {
  const names = [
    [{ printed: "5", title: "Intro", known: true }, "slide 5", "Slide 5"],
    [{ printed: "", title: "Agenda", known: true, page: 2, pages: 9, titleUnique: true }, "page 2 of 9 “Agenda”",
      "Page 2 of 9 “Agenda”"],
    [{ printed: "", title: "Cython", known: true, page: 4, pages: 9, titleUnique: false }, "page 4 of 9", "Page 4 of 9"],
    [{ printed: "", title: "", known: true, page: 6, pages: 9, titleUnique: false }, "page 6 of 9", "Page 6 of 9"],
    [{ printed: "", title: "", known: false, page: null, pages: 0, titleUnique: false }, "slide", "Slide"],
  ];
  for (const [name, phrase, header] of names) {
    assert.equal(M.slidePhrase(name), phrase);
    assert.equal(M.headingText(M.slideHeading(name)), header);
  }
});

test("evidence: the tooltip quotes it under a label per kind, a click sends it whole", () => {
  const evidence = { quote: "Merge compares the heads of both halves…", full: "Merge compares the heads\nof both halves and moves the smaller", verdict: "supported", reason: "3 of 3 terms" };
  const slide = M.describe(P.parseMarker(SLIDE), UNITS, FAQS, evidence);
  assert.deepEqual(M.evidenceQuote(slide), { label: "On the slide", text: "“Merge compares the heads of both halves…”" });
  assert.equal(M.clickValue(slide, "n").quote, evidence.full);
  assert.equal(M.supportNote(slide), null);
  const faq = M.describe(P.parseMarker(FAQ), UNITS, FAQS, { ...evidence, quote: "No, it is closed book." });
  assert.deepEqual(M.evidenceQuote(faq), { label: "From the answer", text: "“No, it is closed book.”" });
  assert.deepEqual(M.detailRows(faq)[0].value, "Is the exam open book?");
  const video = M.describe(P.parseMarker("[cite:L:12::30:45::Merge:Spoken.:vt13]"), UNITS, FAQS, evidence);
  assert.equal(M.evidenceQuote(video).label, "In the video");
  assert.equal(M.clickValue(video, "n").quote, evidence.full);
});

test("evidence: an answer stored without it shows no quote and clicks as before", () => {
  const plain = item(SLIDE);
  assert.equal(M.evidenceQuote(plain), null);
  assert.deepEqual(M.clickValue(plain, "n1"), { kind: "slide", unitId: "12", page: 3, nonce: "n1" });
  const junk = M.describe(P.parseMarker(SLIDE), UNITS, FAQS, { quote: 42, full: { x: 1 }, verdict: ["x"] });
  assert.equal(M.evidenceQuote(junk).text, "“42”");
  assert.equal(M.clickValue(junk, "n").quote, undefined, "a full text that is not a string is not sent");
});

test("support: an unsupported citation is flagged with its reason", () => {
  const wrong = M.describe(P.parseMarker(SLIDE), UNITS, FAQS, { quote: "x", verdict: "unsupported", reason: "0 of 4 terms" });
  assert.deepEqual(M.supportNote(wrong), { level: "warning", text: "The cited source may not support this sentence (0 of 4 terms)" });
  const partial = M.describe(P.parseMarker(SLIDE), UNITS, FAQS, { quote: "x", verdict: "partial" });
  assert.equal(M.supportNote(partial), null);
});

// ---- a unit with a transcript but no video ----------------------------------------------------------

test("a transcript chip of a unit without a video names the transcript and opens it at the cue", () => {
  const units = { 12: { ...UNITS[12], hasVideo: false, hasTranscript: true } };
  const chip = M.describe(P.parseMarker(VIDEO), units, FAQS, { quote: "The tree has log n levels." });
  assert.equal(chip.status, "current");
  assert.equal(chip.where, "Transcript · 1:15–1:32");
  // the chip's own label (read out by a screen reader) names the transcript as its tooltip does
  assert.equal(M.ariaLabel([chip]), "Transcript source: Recursion tree, 1:15–1:32");
  assert.equal(M.actionHint(chip), "Click to read the transcript at 1:15");
  assert.deepEqual(M.evidenceQuote(chip), { label: "In the transcript", text: "“The tree has log n levels.”" });
  assert.equal(M.clickValue(chip, "n1").kind, "video");
  // without a transcript either, the chip opens the unit and says the video is gone
  const bare = item(VIDEO, { 12: { ...UNITS[12], hasVideo: false } });
  assert.equal(bare.status, "gone");
  assert.equal(M.clickValue(bare, "n2").kind, "unit");
});

// ---- chips the Artemis client draws but whose position the viewer cannot use ------------------------

test("a video chip whose start is not a number of seconds is drawn as video, does nothing and says why", () => {
  const i = item("[cite:L:12::00.01::Clock:Written as a clock.]");
  assert.equal(i.kind, "video");
  assert.equal(i.where, "Video");
  assert.equal(M.isClickable(i), false);
  assert.equal(M.clickValue(i, "n"), null);
  assert.equal(M.actionHint(i), "");
  assert.deepEqual(i.note, { level: "warning", text: "The start “00.01” is not a number of seconds: the chip cannot play it" });
  assert.ok(M.ariaLabel([i]).endsWith("the chip cannot play it"));
});

test("a citation with only an end time is a video chip without a start second: it does nothing", () => {
  const i = item("[cite:L:12:7::180:End:Only an end.:va2]");
  assert.equal(i.kind, "video");
  assert.equal(M.clickValue(i, "n"), null);
  assert.deepEqual(i.note, { level: "warning", text: "This video citation has no start second: the chip cannot play it" });
});

test("a slide chip whose page is not a page number does nothing and says why", () => {
  const i = item("[cite:L:12:abc:::Page:Not a page.]");
  assert.equal(i.kind, "slide");
  assert.equal(M.clickValue(i, "n"), null);
  assert.equal(M.isBlocked(i), true);
  assert.deepEqual(i.note, { level: "warning", text: "The page “abc” is not a page number: the chip cannot open it" });
});

test("pagedMembers: the card pages only through members with a summary, as the Artemis client does", () => {
  const withSummary = item(SLIDE);
  const without = item("[cite:L:12:4:::Split:]");
  assert.deepEqual(M.pagedMembers([withSummary, without, item(SLIDE2)]), [0, 2]);
  assert.deepEqual(M.pagedMembers([without, withSummary]), [1]);
  assert.deepEqual(M.pagedMembers([without, without]), [0], "no summary: the first member's card");
});
