/*
 * The chip model: what a citation chip shows and sends, as plain data. No DOM access.
 *
 * An ES module: it imports the parser's `citationKind` and chips.js imports what it exports; the
 * node tests import it too.
 *
 * Numbers (DESIGN.md section 3): a marker's `page` is the deck index (1-based PDF position). It is
 * what the click value carries. A slide is named by its printed number ("Slide 5"); a slide that prints
 * no number by its place in the deck ("Page 12 of 20"), with its title beside it when no other page has
 * that title ("Page 2 of 20 “Agenda”"); an unknown slide just "Slide".
 */

import { citationKind } from "./citation_parser.js";

export const KIND_LABEL = { slide: "Slide", video: "Video", faq: "FAQ", source: "Source" };
export const STALE_TEXT = "The material changed since this answer was written";
export const NEWER_TEXT = "This citation comes from another copy of the material, newer than this one";
export const NO_SUMMARY_TEXT = "No summary available.";
export const OPEN_UNIT_HINT = "Click to open the unit";

export function asObject(value) {
  return value && typeof value === "object" && !Array.isArray(value) ? value : {};
}

export function toInt(value) {
  return /^\d+$/.test(value || "") ? Number.parseInt(value, 10) : null;
}

export function textOf(value) {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return typeof value === "string" ? value.trim() : "";
}

export function quoted(text) {
  return `“${text}”`;
}

export function capitalized(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

/**
 * A video position as a clock: "M:SS" below an hour, "H:MM:SS" from an hour on (125 → "2:05",
 * 3725 → "1:02:05"). Fractions of a second are dropped; a negative or non-finite value gives "".
 */
export function clock(seconds) {
  if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds < 0) return "";
  const s = Math.trunc(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

/** "1:15–1:32", or just the start when there is no end after it. */
export function videoRange(start, end) {
  return end !== null && end > start ? `${clock(start)}–${clock(end)}` : clock(start);
}

/**
 * How people name the slide at deck index `page` of `unit`: {printed, title, known}.
 * Unknown (known: false) when the unit, its slides or that page are missing, or when the chip was
 * cited in another version of the deck (`otherDeck`: the index points into an older or newer deck,
 * so the current deck's number could be wrong).
 */
export function slideName(unit, page, otherDeck) {
  const slides = asObject(unit && unit.slides);
  const key = page === null ? null : String(page);
  if (otherDeck || key === null || !Object.prototype.hasOwnProperty.call(slides, key)) {
    return { printed: "", title: "", known: false, page: null, pages: 0, titleUnique: false };
  }
  const entry = asObject(slides[key]);
  const title = textOf(entry.title);
  // `slides` holds every page of the deck (hidden ones too): its size is the deck's page count
  const entries = Object.values(slides);
  const titleUnique = title !== "" && entries.filter((s) => textOf(asObject(s).title) === title).length === 1;
  return { printed: textOf(entry.printed), title, known: true, page, pages: entries.length, titleUnique };
}

/**
 * The one wording of a slide's name, in lower case, as {words, title}: the printed number
 * ("slide 5", no title), else the place in the deck ("page 12 of 20") with the title when no other
 * page has it, else just "slide". `numbered` tells whether the words name one slide by number or
 * place (no article before them).
 */
export function slideWords(name) {
  if (name.printed) return { words: `slide ${name.printed}`, title: "", numbered: true };
  if (name.known && name.page !== null && name.page !== undefined) {
    return { words: `page ${name.page} of ${name.pages}`, title: name.titleUnique ? name.title : "", numbered: true };
  }
  return { words: "slide", title: "", numbered: false };
}

/** The slide's name as one phrase: "slide 5", "page 2 of 20 “Agenda”", "page 12 of 20", "slide". */
export function slidePhrase(name) {
  const { words, title } = slideWords(name);
  return title ? `${words} ${quoted(title)}` : words;
}

/**
 * The tooltip header as {text, title}: the title (without quotes, "" when none) is kept apart so
 * the renderer can keep its spelling while the header is set in capitals. See `headingText`.
 */
export function slideHeading(name) {
  const { words, title } = slideWords(name);
  return { text: capitalized(words), title };
}

/** A heading as one string: "Slide 5", "Page 2 of 20 “Agenda”", "Video · 1:15–1:32". */
export function headingText(heading) {
  return heading.title ? `${heading.text} ${quoted(heading.title)}` : heading.text;
}

/**
 * How the stored version stands to the unit's current material (va: deck, vt: transcript):
 * "older" (stale: the material changed since the citation was written), "newer" (a citation from
 * another copy of the material, newer than this one), or "" (the same version, no version field,
 * or no current version to compare with). Either way a position cited in other material may point
 * at the wrong slide or second. citation_core/lms/versions.py compares the same way.
 */
export function versionStanding(version, unit) {
  const m = /^v([at])(\d+)$/.exec(version || "");
  if (!m || !unit) return "";
  const current = m[1] === "a" ? unit.attachmentVersion : unit.videoVersion;
  const now = Number(current);
  if (current === null || current === undefined || current === "" || !Number.isFinite(now)) return "";
  const stored = Number(m[2]);
  if (stored === now) return "";
  return stored < now ? "older" : "newer";
}

/** The stored version is older than the unit's current material: the material changed since. */
export function isStale(version, unit) {
  return versionStanding(version, unit) === "older";
}

/**
 * What a click on a lecture chip does, as one status (FAQ chips have "faq"):
 *   current     an exact jump (slide or second), or the unit for a citation without a position
 *   changed     the stored version is older than the unit's material (stale): warn, open the unit only
 *   newer       the stored version is newer than the unit's material: a citation from another copy
 *               of the material; warn, open the unit only
 *   gone        the cited deck, video or slide no longer exists: error, open the unit only
 *   unknown     the unit is not in this course (never was, or deleted): not clickable
 *   unreleased  the unit is not released (``released: false``): not clickable
 *   hidden      the cited slide is hidden (its index in ``hiddenPages``): not clickable
 *   inert       drawn as the Artemis client draws it, but without a position the viewer can use: a
 *               video chip whose start is not a whole number of seconds (e.g. "00.01", or only an
 *               end), a slide chip whose page is not a page number: not clickable
 */
export const STATUS = {
  faq: { clickable: false, opensUnit: false, level: "", note: "" },
  current: { clickable: true, opensUnit: false, level: "", note: "" },
  changed: { clickable: true, opensUnit: true, level: "warning", note: STALE_TEXT },
  newer: { clickable: true, opensUnit: true, level: "warning", note: NEWER_TEXT },
  gone: { clickable: true, opensUnit: true, level: "error", note: "" }, // note depends on the kind
  unknown: { clickable: false, opensUnit: false, level: "error", note: "This unit is not in this course: the chip cannot open it" },
  unreleased: { clickable: false, opensUnit: false, level: "warning", note: "This unit is not released yet: the chip cannot open it" },
  hidden: { clickable: false, opensUnit: false, level: "warning", note: "This slide is hidden: the chip cannot open it" },
  inert: { clickable: false, opensUnit: false, level: "warning", note: "" }, // note depends on the field
};
export const GONE_TEXT = {
  slide: "The cited deck no longer exists: a click opens the unit",
  page: "The cited slide is no longer in the deck: a click opens the unit",
  video: "The cited video no longer exists: a click opens the unit",
};

/** Why a chip of this kind cannot act on the marker's position ("" when it can). */
export function inertText(kind, marker) {
  if (kind === "video" && toInt(marker.start) === null) {
    return marker.start
      ? `The start ${quoted(marker.start)} is not a number of seconds: the chip cannot play it`
      : "This video citation has no start second: the chip cannot play it";
  }
  if (kind === "slide" && toInt(marker.page) === null) {
    return `The page ${quoted(marker.page)} is not a page number: the chip cannot open it`;
  }
  return "";
}

export function isKnownUnit(unit) {
  return Object.keys(asObject(unit)).length > 0;
}

export function hiddenPages(unit) {
  const pages = Array.isArray(unit.hiddenPages) ? unit.hiddenPages : [];
  return pages.map((p) => Number(p)).filter((p) => Number.isInteger(p));
}

/** The status of a lecture chip (see STATUS) and, for "gone", what is gone: {status, gone}. */
export function chipStatus(kind, unit, page, version) {
  if (kind === "faq") return { status: "faq", gone: "" };
  if (!isKnownUnit(unit)) return { status: "unknown", gone: "" };
  if (unit.released === false) return { status: "unreleased", gone: "" };
  if (kind === "slide" && unit.hasDeck === false) return { status: "gone", gone: "slide" };
  // a unit with a transcript but no video: its chips open the transcript at the cue
  if (kind === "video" && unit.hasVideo === false && unit.hasTranscript !== true) {
    return { status: "gone", gone: "video" };
  }
  const standing = versionStanding(version, unit);
  if (standing === "older") return { status: "changed", gone: "" };
  if (standing === "newer") return { status: "newer", gone: "" };
  if (kind === "slide") {
    const slides = asObject(unit.slides);
    if (Object.keys(slides).length > 0 && !Object.prototype.hasOwnProperty.call(slides, String(page))) {
      return { status: "gone", gone: "page" };
    }
    if (hiddenPages(unit).includes(page)) return { status: "hidden", gone: "" };
  }
  return { status: "current", gone: "" };
}

/** A parsed marker plus what the chip needs to show and send. */
export function describe(marker, units, faqs, evidence) {
  const kind = citationKind(marker);
  const keyword = (marker.keyword || "").trim() || (kind === "faq" ? KIND_LABEL.faq : KIND_LABEL.source);
  const unit = kind === "faq" ? null : asObject(asObject(units)[marker.entity_id]);
  const faq = kind === "faq" ? asObject(asObject(faqs)[marker.entity_id]) : null;
  const page = toInt(marker.page);
  const start = toInt(marker.start);
  const end = toInt(marker.end);
  const inert = kind === "faq" ? "" : inertText(kind, marker);
  const { status, gone } = inert ? { status: "inert", gone: "" } : chipStatus(kind, unit, page, marker.version);
  const stale = status === "changed";
  const newer = status === "newer";
  // heading: the tooltip header; spoken: the position in the aria-label ("" when there is none)
  let heading = { text: KIND_LABEL[kind], title: "" };
  let spoken = "";
  let slide = null;
  if (kind === "slide") {
    slide = slideName(unit, page, stale || newer);
    heading = slideHeading(slide);
    if (slide.known) spoken = slidePhrase(slide);
  }
  if (kind === "video" && start === null) {
    heading = { text: kindLabel(kind, unit), title: "" };
  } else if (kind === "video") {
    const range = videoRange(start, end);
    heading = { text: `${kindLabel(kind, unit)} · ${range}`, title: "" };
    spoken = range;
  }
  const ev = asObject(evidence);
  return {
    marker,
    kind,
    keyword,
    // the passage of the source that supports the sentence: quoted in the tooltip (elided by the
    // server at a word boundary), sent in full with a click so the viewer can light it up
    quote: textOf(ev.quote),
    evidenceText: typeof ev.full === "string" ? ev.full : "",
    verdict: typeof ev.verdict === "string" ? ev.verdict : null,
    supportReason: textOf(ev.reason),
    summary: (marker.summary || "").trim(),
    unit,
    faq,
    page, // deck index: only for the click value, never shown
    start,
    end,
    slide,
    heading,
    where: headingText(heading),
    spoken,
    status,
    stale,
    newer,
    // the unit says the cited deck, video or slide is not there: open the unit instead
    unavailable: status === "gone",
    note: status === "inert" ? { level: STATUS.inert.level, text: inert } : statusNote(status, gone),
  };
}

/** The tooltip's notice for a status: {level: "warning" | "error", text}, or null when there is none. */
export function statusNote(status, gone) {
  const s = STATUS[status];
  if (!s || !s.level) return null;
  return { level: s.level, text: status === "gone" ? GONE_TEXT[gone] || GONE_TEXT.slide : s.note };
}

/** FAQ chips, and chips whose unit is unknown, unreleased or whose slide is hidden, are not clickable. */
export function isClickable(item) {
  return STATUS[item.status] ? STATUS[item.status].clickable : false;
}

/** A lecture chip that cannot be opened at all: its unit is unknown or unreleased, or its slide hidden. */
export function isBlocked(item) {
  return item.kind !== "faq" && !isClickable(item);
}

/** Whether a click opens the unit rather than a position (changed, gone, or no position). */
export function opensUnit(item) {
  return STATUS[item.status].opensUnit || (item.kind !== "slide" && item.kind !== "video");
}

/**
 * The click value for one member with the given nonce, or null when the chip is not clickable.
 * A click that opens the unit says why: ``reason`` "changed" (stale), "newer" (cited in a newer copy
 * of the material), "gone" or "position" (no position cited); ``stale`` is true for "changed" only;
 * ``cited`` is the chip's kind ("slide", "video", "source").
 */
export function clickValue(item, nonce) {
  if (!isClickable(item)) return null;
  const unitId = item.marker.entity_id;
  if (opensUnit(item)) {
    const reason = item.status === "current" ? "position" : item.status;
    return { kind: "unit", unitId, stale: item.stale, reason, cited: item.kind, nonce };
  }
  const quote = item.evidenceText ? { quote: item.evidenceText } : {};
  if (item.kind === "slide") return { kind: "slide", unitId, page: item.page, nonce, ...quote };
  return { kind: "video", unitId, start: item.start, end: item.end, nonce, ...quote };
}

export const QUOTE_LABEL = { slide: "On the slide", video: "In the video", faq: "From the answer", source: "In the source" };
export const UNSUPPORTED_TEXT = "The cited source may not support this sentence";

/** The tooltip's quoted evidence, {label, text}, or null when the answer was stored without it. */
export function evidenceQuote(item) {
  if (!item.quote) return null;
  const label = item.kind === "video" && transcriptOnly(item.unit) ? "In the transcript" : QUOTE_LABEL[item.kind];
  return { label: label || QUOTE_LABEL.source, text: quoted(item.quote) };
}

/** How the chip names its kind: "Slide", "Video", "FAQ", "Source", and "Transcript" for a video citation
 *  of a unit with a transcript but no video (the Sources list and the Library say "transcript" too). */
export function kindLabel(kind, unit) {
  return kind === "video" && transcriptOnly(unit) ? "Transcript" : KIND_LABEL[kind];
}

/** Whether a unit has a transcript to open but no video (an uploaded deck with its transcript, say). */
export function transcriptOnly(unit) {
  return Boolean(unit) && unit.hasVideo === false && unit.hasTranscript === true;
}

/** A warning when the support audit found the sentence unsupported by this source, else null. */
export function supportNote(item) {
  if (item.verdict !== "unsupported") return null;
  const why = item.supportReason ? ` (${item.supportReason})` : "";
  return { level: "warning", text: `${UNSUPPORTED_TEXT}${why}` };
}

/** What a click on the chip does, in words ("" when it does nothing). */
export function actionHint(item) {
  if (!isClickable(item)) return "";
  if (opensUnit(item)) return OPEN_UNIT_HINT;
  if (item.kind === "slide") {
    const { numbered } = slideWords(item.slide);
    return `Click to open ${numbered ? "" : "the "}${slidePhrase(item.slide)}`;
  }
  if (transcriptOnly(item.unit)) return `Click to read the transcript at ${clock(item.start)}`;
  return `Click to play from ${clock(item.start)}`;
}

export function anyStale(items) {
  return items.some((i) => i.stale);
}

/** Whether any member was cited in a newer copy of the material than this one. */
export function anyNewer(items) {
  return items.some((i) => i.newer);
}

/** Whether any member's deck, video or slide is gone. */
export function anyGone(items) {
  return items.some((i) => i.status === "gone");
}

/** The chip's "+N" for a group of N + 1 members, "" for a single one. */
export function moreLabel(items) {
  return items.length > 1 ? `+${items.length - 1}` : "";
}

/**
 * The members the tooltip pages through, as indices into `items`: those with a summary, as the Artemis
 * client does (a pager only when more than one has one); the first member when none has a summary.
 */
export function pagedMembers(items) {
  const withSummary = items.map((item, index) => (item.summary ? index : -1)).filter((index) => index >= 0);
  return withSummary.length > 0 ? withSummary : [0];
}

/** The tooltip's pager: "1 / 3". */
export function pagerText(index, count) {
  return `${index + 1} / ${count}`;
}

/** The member shown after paging `step` members from `index` (stays inside 0..count-1). */
export function steppedIndex(index, step, count) {
  return Math.min(count - 1, Math.max(0, index + step));
}

/** The chip button's aria-label: kind, keyword, position, group size, staleness or a newer copy. */
export function ariaLabel(items) {
  const first = items[0];
  let label = `${kindLabel(first.kind, first.unit)} source: ${first.keyword}`;
  if (first.spoken) label += `, ${first.spoken}`;
  if (items.length > 1) label += `, and ${items.length - 1} more`;
  if (first.note && first.status !== "changed" && first.status !== "newer") label += `. ${first.note.text}`;
  if (anyStale(items)) label += `. ${STALE_TEXT}`;
  if (anyNewer(items)) label += `. ${NEWER_TEXT}`;
  return label;
}

/** The tooltip's summary: {text, empty}. */
export function summaryText(item) {
  return { text: item.summary || NO_SUMMARY_TEXT, empty: !item.summary };
}

/** The tooltip's detail rows, [{label, value, missing}]: the FAQ's question, or unit and lecture. */
export function detailRows(item) {
  if (item.kind === "faq") {
    const question = (item.faq && item.faq.question) || "";
    return [{ label: "Question", value: question || `FAQ ${item.marker.entity_id} (not found)`, missing: !question }];
  }
  const unitTitle = (item.unit && item.unit.lectureUnitTitle) || "";
  const lectureTitle = (item.unit && item.unit.lectureTitle) || "";
  const rows = [{ label: "Unit", value: unitTitle || `Unit ${item.marker.entity_id} (not found)`, missing: !unitTitle }];
  if (lectureTitle) rows.push({ label: "Lecture", value: lectureTitle, missing: false });
  return rows;
}
