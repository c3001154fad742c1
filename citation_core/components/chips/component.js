// The chip component module, built from citation_parser.js, chip_model.js, chips.js by citation_core.lms.chips.build_component_js
// (make component): edit those files, not this one.

/*
 * Citation marker parsers for the chip renderer (the Artemis client side of DESIGN 2).
 *
 * Plain functions, no imports and no `export`: the Python side prepends this file to chips.js to
 * build the component module, and the node tests load it through the `module.exports` guard at
 * the end. Every parser returns objects shaped exactly like the contract test vectors
 * (citation_core/contract/vectors.json):
 *   {span: [start, end], type, entity_id, page, start, end, keyword, summary, seq, version}
 * Field values are strings exactly as written, null where the pattern does not carry them;
 * `span` is in Unicode code points (the vectors use Python offsets), not JavaScript UTF-16 units.
 */

/* eslint-disable no-unused-vars */

// Iris intermediate pattern. Python's \d is any Unicode decimal digit: \p{Nd} mirrors it.
const IRIS_PATTERN = /\[cite:([LF]):([^:\]]*):([^:\]]*):([^:\]]*):([^:\]]*)!(\p{Nd}+)\]/gu;
// Artemis server pattern (IrisCitationService, Java: \d is ASCII only), with capture groups.
const SERVER_PATTERN = /\[cite:(L):([0-9]+):([^:\]]*):([^:\]]*):([^:\]]*):([^:\]]*):([^\]]*)\]/gu;
// Artemis client pattern (iris-citation-text.model.ts), verbatim.
const CLIENT_PATTERN = /\[cite:[LF]:[^:[\]]+:[^:[\]]*:[^:[\]]*:[^:[\]]*:[^:[\]]*:[^[\]]*\]/g;
// A version field is the last ":"-part of the summary when it matches this.
const VERSION_FIELD = /^v[at][0-9]+$/;

/** Converts UTF-16 indices of one text to code-point offsets (indices must not decrease). */
function codePointCounter(text) {
  let unit = 0;
  let points = 0;
  return function toCodePoints(index) {
    while (unit < index) {
      const code = text.charCodeAt(unit);
      const isPair =
        code >= 0xd800 && code <= 0xdbff && unit + 1 < text.length &&
        text.charCodeAt(unit + 1) >= 0xdc00 && text.charCodeAt(unit + 1) <= 0xdfff;
      unit += isPair && unit + 2 <= index ? 2 : 1;
      points += 1;
    }
    return points;
  };
}

function markerMatch(span, type, entityId, page, start, end, keyword, summary, seq, version) {
  return {
    span,
    type,
    entity_id: entityId,
    page,
    start,
    end,
    keyword,
    summary,
    seq,
    version,
  };
}

function freshPattern(pattern) {
  return new RegExp(pattern.source, pattern.flags);
}

/** Intermediate markers `[cite:type:id:page:start:end!seq]` (what Iris accepts). */
function parseIris(text) {
  const toPoints = codePointCounter(String(text));
  const out = [];
  for (const m of String(text).matchAll(freshPattern(IRIS_PATTERN))) {
    const span = [toPoints(m.index), toPoints(m.index + m[0].length)];
    out.push(markerMatch(span, m[1], m[2], m[3], m[4], m[5], null, null, m[6], null));
  }
  return out;
}

/** Final/stored markers as the Artemis server resolves them (L only, numeric id). */
function parseServer(text) {
  const toPoints = codePointCounter(String(text));
  const out = [];
  for (const m of String(text).matchAll(freshPattern(SERVER_PATTERN))) {
    const span = [toPoints(m.index), toPoints(m.index + m[0].length)];
    out.push(markerMatch(span, m[1], m[2], m[3], m[4], m[5], m[6], m[7], null, null));
  }
  return out;
}

/** The Artemis client: client pattern, split on ":", at least 7 parts, summary = parts 6.. joined. */
function parseClientWith(text, splitVersion) {
  const source = String(text);
  const toPoints = codePointCounter(source);
  const out = [];
  for (const m of source.matchAll(freshPattern(CLIENT_PATTERN))) {
    const inner = m[0].slice("[cite:".length, -1);
    const parts = inner.split(":");
    if (parts.length < 7) continue; // cannot happen with this pattern; the client checks anyway
    let summary = parts.slice(6).join(":");
    let version = null;
    if (splitVersion && parts.length > 7 && VERSION_FIELD.test(parts[parts.length - 1])) {
      version = parts[parts.length - 1];
      summary = parts.slice(6, -1).join(":");
    }
    const span = [toPoints(m.index), toPoints(m.index + m[0].length)];
    out.push(markerMatch(span, parts[0], parts[1], parts[2], parts[3], parts[4], parts[5], summary, null, version));
  }
  return out;
}

function parseClient(text) {
  return parseClientWith(text, false);
}

/** Final and stored markers: the client parse, then a trailing `va<N>`/`vt<N>` split off the summary. */
function parseStored(text) {
  return parseClientWith(text, true);
}

/** One whole marker (the text of one candidate), or null when it is not exactly one stored marker. */
function parseMarker(raw) {
  const text = String(raw);
  const found = parseStored(text);
  if (found.length !== 1) return null;
  const [start, end] = found[0].span;
  if (start !== 0 || end !== Array.from(text).length) return null;
  return found[0];
}

/**
 * Groups marker candidates as the Artemis client groups its citations (iris-citation-text.util.ts):
 * markers that follow each other with only whitespace text between them form one group.
 *
 * `parts` is a sequence (e.g. the child nodes of one element) of
 *   {kind: "cite", raw: "<candidate text>"}, {kind: "text", text: "..."} or {kind: "other"}.
 * A candidate that is not exactly one stored marker is no citation to the client: it stays text
 * and, not being whitespace, ends the group before it. Returns one entry per group, in order:
 * {first, last, indices, raws, members}, where first/last are indices into `parts` (the
 * whitespace parts in between belong to the group), indices the positions of its candidates, and
 * members the parsed markers, or null for a candidate that stays text (a group of its own) - and
 * for a group in which any member fails to parse, which then stays raw text as a whole.
 */
function groupCandidates(parts) {
  const groups = [];
  let current = null;
  const close = () => {
    if (current) {
      const parsed = current.raws.map(parseMarker);
      current.members = parsed.every((p) => p !== null) ? parsed : null;
      groups.push(current);
    }
    current = null;
  };
  parts.forEach((part, index) => {
    const kind = part && part.kind;
    if (kind === "cite" && parseMarker(part.raw) === null) {
      close();
      groups.push({ first: index, last: index, indices: [index], raws: [String(part.raw)], members: null });
    } else if (kind === "cite") {
      if (!current) current = { first: index, last: index, indices: [], raws: [], members: null };
      current.indices.push(index);
      current.raws.push(String(part.raw));
      current.last = index;
    } else if (kind === "text" && current && /^\s*$/.test(String(part.text))) {
      // whitespace may continue the group; only the next candidate decides
    } else {
      close();
    }
  });
  close();
  return groups;
}

/**
 * The kind of chip the Artemis client draws for a parsed marker (resolveCitationTypeClass):
 * "faq" for an FAQ, else "video" when start or end is not empty, else "slide" when page is not
 * empty, else "source". Any text counts: "00:01" as start makes a video chip.
 */
function citationKind(marker) {
  if (marker.type === "F") return "faq";
  if (marker.start || marker.end) return "video";
  if (marker.page) return "slide";
  return "source";
}

/** The chip's label as the Artemis client writes it: the keyword, trimmed, else "FAQ" or "Source". */
function citationLabel(marker) {
  const keyword = (marker.keyword || "").trim();
  return keyword || (marker.type === "F" ? "FAQ" : "Source");
}

/**
 * The pinned material version as the Artemis client reads it (parseTrailingVersion):
 * {kind: "attachment" | "video", version: "<digits>"} from a trailing va<N> / vt<N>, else null.
 */
function pinnedVersion(marker) {
  const m = /^v([at])(\d+)$/.exec(marker.version || "");
  return m ? { kind: m[1] === "t" ? "video" : "attachment", version: m[2] } : null;
}

/**
 * The chips the Artemis client draws for a plain text (its replaceCitationBlocks): one entry per
 * group of client-pattern markers separated only by whitespace, in order, as
 * {span: [start, end], chips: [{kind, label, version}]} (span in code points, from the first
 * member's start to the last member's end). A group with a member that does not parse is
 * {span, chips: null} (stays raw text).
 */
function artemisGroups(text) {
  const source = String(text);
  const found = parseStored(source);
  const parts = [];
  let pos = 0;
  const points = Array.from(source);
  for (const m of found) {
    if (m.span[0] > pos) parts.push({ kind: "text", text: points.slice(pos, m.span[0]).join("") });
    parts.push({ kind: "cite", raw: points.slice(m.span[0], m.span[1]).join(""), match: m });
    pos = m.span[1];
  }
  if (pos < points.length) parts.push({ kind: "text", text: points.slice(pos).join("") });
  return groupCandidates(parts).map((g) => ({
    span: [parts[g.first].match.span[0], parts[g.last].match.span[1]],
    chips: g.members
      ? g.members.map((m) => ({ kind: citationKind(m), label: citationLabel(m), version: pinnedVersion(m) }))
      : null,
  }));
}

if (typeof module !== "undefined" && module && module.exports) {
  module.exports = {
    parseIris,
    parseServer,
    parseClient,
    parseStored,
    parseMarker,
    groupCandidates,
    citationKind,
    citationLabel,
    pinnedVersion,
    artemisGroups,
    codePointCounter,
  };
}


/*
 * The chip model: what a citation chip shows and sends, as plain data. No DOM access.
 *
 * Plain functions, no imports and no `export`: citation_core/lms/chips.py concatenates
 * citation_parser.js, this file and chips.js into the component module, so `citationKind` (from
 * citation_parser.js) is in scope here and everything below is in scope of chips.js. The node
 * tests load this file through the `module.exports` guard at the end.
 *
 * Numbers (DESIGN.md section 3): a marker's `page` is the deck index (1-based PDF position). It is
 * what the click value carries, but text for people never shows it: a slide is named by its printed
 * number ("Slide 5"), else by its title (Unnumbered slide “Agenda”), else just "Slide".
 */

/* eslint-disable no-unused-vars */

const KIND_LABEL = { slide: "Slide", video: "Video", faq: "FAQ", source: "Source" };
const STALE_TEXT = "The material changed since this answer was written";
const NO_SUMMARY_TEXT = "No summary available.";
const OPEN_UNIT_HINT = "Click to open the unit";

function asObject(value) {
  return value && typeof value === "object" && !Array.isArray(value) ? value : {};
}

function toInt(value) {
  return /^\d+$/.test(value || "") ? Number.parseInt(value, 10) : null;
}

function textOf(value) {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return typeof value === "string" ? value.trim() : "";
}

function quoted(text) {
  return `“${text}”`;
}

function capitalized(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

/**
 * A video position as a clock: "M:SS" below an hour, "H:MM:SS" from an hour on (125 → "2:05",
 * 3725 → "1:02:05"). Fractions of a second are dropped; a negative or non-finite value gives "".
 */
function clock(seconds) {
  if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds < 0) return "";
  const s = Math.trunc(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

/** "1:15–1:32", or just the start when there is no end after it. */
function videoRange(start, end) {
  return end !== null && end > start ? `${clock(start)}–${clock(end)}` : clock(start);
}

/**
 * How people name the slide at deck index `page` of `unit`: {printed, title, known}.
 * Unknown (known: false) when the unit, its slides or that page are missing, or when the chip is
 * stale (the index points into an older deck, so the current deck's number could be wrong).
 */
function slideName(unit, page, stale) {
  const slides = asObject(unit && unit.slides);
  const key = page === null ? null : String(page);
  if (stale || key === null || !Object.prototype.hasOwnProperty.call(slides, key)) {
    return { printed: "", title: "", known: false };
  }
  const entry = asObject(slides[key]);
  return { printed: textOf(entry.printed), title: textOf(entry.title), known: true };
}

/**
 * The one wording of a slide's name, in lower case, as {words, title}: the printed number
 * ("slide 5", no title), else an unnumbered slide with its title (may be ""), else just "slide".
 * `numbered` tells whether the words name one slide by number (no article before them).
 */
function slideWords(name) {
  if (name.printed) return { words: `slide ${name.printed}`, title: "", numbered: true };
  if (name.known) return { words: "unnumbered slide", title: name.title, numbered: false };
  return { words: "slide", title: "", numbered: false };
}

/** The slide's name as one phrase: "slide 5", "unnumbered slide “Agenda”", "unnumbered slide", "slide". */
function slidePhrase(name) {
  const { words, title } = slideWords(name);
  return title ? `${words} ${quoted(title)}` : words;
}

/**
 * The tooltip header as {text, title}: the title (without quotes, "" when none) is kept apart so
 * the renderer can keep its spelling while the header is set in capitals. See `headingText`.
 */
function slideHeading(name) {
  const { words, title } = slideWords(name);
  return { text: capitalized(words), title };
}

/** A heading as one string: "Slide 5", "Unnumbered slide “Agenda”", "Video · 1:15–1:32". */
function headingText(heading) {
  return heading.title ? `${heading.text} ${quoted(heading.title)}` : heading.text;
}

/**
 * The stored version differs from the unit's current material (va: deck, vt: transcript): the
 * position was cited in other material, so it may point at the wrong slide or second.
 */
function isStale(version, unit) {
  const m = /^v([at])(\d+)$/.exec(version || "");
  if (!m || !unit) return false;
  const current = m[1] === "a" ? unit.attachmentVersion : unit.videoVersion;
  const now = Number(current);
  return current !== null && current !== undefined && current !== "" && Number.isFinite(now) && Number(m[2]) !== now;
}

/**
 * What a click on a lecture chip does, as one status (FAQ chips have "faq"):
 *   current     an exact jump (slide or second), or the unit for a citation without a position
 *   changed     the stored version differs from the unit's material: warn, open the unit only
 *   gone        the cited deck, video or slide no longer exists: error, open the unit only
 *   unknown     the unit is not in this course (never was, or deleted): not clickable
 *   unreleased  the unit is not released (``released: false``): not clickable
 *   hidden      the cited slide is hidden (its index in ``hiddenPages``): not clickable
 *   inert       drawn as the Artemis client draws it, but without a position the viewer can use: a
 *               video chip whose start is not a whole number of seconds (e.g. "00.01", or only an
 *               end), a slide chip whose page is not a page number: not clickable
 */
const STATUS = {
  faq: { clickable: false, opensUnit: false, level: "", note: "" },
  current: { clickable: true, opensUnit: false, level: "", note: "" },
  changed: { clickable: true, opensUnit: true, level: "warning", note: STALE_TEXT },
  gone: { clickable: true, opensUnit: true, level: "error", note: "" }, // note depends on the kind
  unknown: { clickable: false, opensUnit: false, level: "error", note: "This unit is not in this course: the chip cannot open it" },
  unreleased: { clickable: false, opensUnit: false, level: "warning", note: "This unit is not released yet: the chip cannot open it" },
  hidden: { clickable: false, opensUnit: false, level: "warning", note: "This slide is hidden: the chip cannot open it" },
  inert: { clickable: false, opensUnit: false, level: "warning", note: "" }, // note depends on the field
};
const GONE_TEXT = {
  slide: "The cited deck no longer exists: a click opens the unit",
  page: "The cited slide is no longer in the deck: a click opens the unit",
  video: "The cited video no longer exists: a click opens the unit",
};

/** Why a chip of this kind cannot act on the marker's position ("" when it can). */
function inertText(kind, marker) {
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

function isKnownUnit(unit) {
  return Object.keys(asObject(unit)).length > 0;
}

function hiddenPages(unit) {
  const pages = Array.isArray(unit.hiddenPages) ? unit.hiddenPages : [];
  return pages.map((p) => Number(p)).filter((p) => Number.isInteger(p));
}

/** The status of a lecture chip (see STATUS) and, for "gone", what is gone: {status, gone}. */
function chipStatus(kind, unit, page, version) {
  if (kind === "faq") return { status: "faq", gone: "" };
  if (!isKnownUnit(unit)) return { status: "unknown", gone: "" };
  if (unit.released === false) return { status: "unreleased", gone: "" };
  if (kind === "slide" && unit.hasDeck === false) return { status: "gone", gone: "slide" };
  // a unit with a transcript but no video: its chips open the transcript at the cue
  if (kind === "video" && unit.hasVideo === false && unit.hasTranscript !== true) {
    return { status: "gone", gone: "video" };
  }
  if (isStale(version, unit)) return { status: "changed", gone: "" };
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
function describe(marker, units, faqs, evidence) {
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
  // heading: the tooltip header; spoken: the position in the aria-label ("" when there is none)
  let heading = { text: KIND_LABEL[kind], title: "" };
  let spoken = "";
  let slide = null;
  if (kind === "slide") {
    slide = slideName(unit, page, stale);
    heading = slideHeading(slide);
    if (slide.known) spoken = slidePhrase(slide);
  }
  if (kind === "video" && start === null) {
    heading = { text: transcriptOnly(unit) ? "Transcript" : KIND_LABEL.video, title: "" };
  } else if (kind === "video") {
    const range = videoRange(start, end);
    heading = { text: `${transcriptOnly(unit) ? "Transcript" : KIND_LABEL.video} · ${range}`, title: "" };
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
    // the unit says the cited deck, video or slide is not there: open the unit instead
    unavailable: status === "gone",
    note: status === "inert" ? { level: STATUS.inert.level, text: inert } : statusNote(status, gone),
  };
}

/** The tooltip's notice for a status: {level: "warning" | "error", text}, or null when there is none. */
function statusNote(status, gone) {
  const s = STATUS[status];
  if (!s || !s.level) return null;
  return { level: s.level, text: status === "gone" ? GONE_TEXT[gone] || GONE_TEXT.slide : s.note };
}

/** FAQ chips, and chips whose unit is unknown, unreleased or whose slide is hidden, are not clickable. */
function isClickable(item) {
  return STATUS[item.status] ? STATUS[item.status].clickable : false;
}

/** A lecture chip that cannot be opened at all: its unit is unknown or unreleased, or its slide hidden. */
function isBlocked(item) {
  return item.kind !== "faq" && !isClickable(item);
}

/** Whether a click opens the unit rather than a position (changed, gone, or no position). */
function opensUnit(item) {
  return STATUS[item.status].opensUnit || (item.kind !== "slide" && item.kind !== "video");
}

/**
 * The click value for one member with the given nonce, or null when the chip is not clickable.
 * A click that opens the unit says why: ``reason`` "changed", "gone" or "position" (no position
 * cited); ``stale`` is true for "changed"; ``cited`` is the chip's kind ("slide", "video", "source").
 */
function clickValue(item, nonce) {
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

const QUOTE_LABEL = { slide: "On the slide", video: "In the video", faq: "From the answer", source: "In the source" };
const UNSUPPORTED_TEXT = "The cited source may not support this sentence";

/** The tooltip's quoted evidence, {label, text}, or null when the answer was stored without it. */
function evidenceQuote(item) {
  if (!item.quote) return null;
  const label = item.kind === "video" && transcriptOnly(item.unit) ? "In the transcript" : QUOTE_LABEL[item.kind];
  return { label: label || QUOTE_LABEL.source, text: quoted(item.quote) };
}

/** Whether a unit has a transcript to open but no video (an uploaded deck with its transcript, say). */
function transcriptOnly(unit) {
  return Boolean(unit) && unit.hasVideo === false && unit.hasTranscript === true;
}

/** A warning when the support audit found the sentence unsupported by this source, else null. */
function supportNote(item) {
  if (item.verdict !== "unsupported") return null;
  const why = item.supportReason ? ` (${item.supportReason})` : "";
  return { level: "warning", text: `${UNSUPPORTED_TEXT}${why}` };
}

/** What a click on the chip does, in words ("" when it does nothing). */
function actionHint(item) {
  if (!isClickable(item)) return "";
  if (opensUnit(item)) return OPEN_UNIT_HINT;
  if (item.kind === "slide") {
    const { numbered } = slideWords(item.slide);
    return `Click to open ${numbered ? "" : "the "}${slidePhrase(item.slide)}`;
  }
  if (transcriptOnly(item.unit)) return `Click to read the transcript at ${clock(item.start)}`;
  return `Click to play from ${clock(item.start)}`;
}

function anyStale(items) {
  return items.some((i) => i.stale);
}

/** Whether any member's deck, video or slide is gone. */
function anyGone(items) {
  return items.some((i) => i.status === "gone");
}

/** The chip's "+N" for a group of N + 1 members, "" for a single one. */
function moreLabel(items) {
  return items.length > 1 ? `+${items.length - 1}` : "";
}

/**
 * The members the tooltip pages through, as indices into `items`: those with a summary, as the Artemis
 * client does (a pager only when more than one has one); the first member when none has a summary.
 */
function pagedMembers(items) {
  const withSummary = items.map((item, index) => (item.summary ? index : -1)).filter((index) => index >= 0);
  return withSummary.length > 0 ? withSummary : [0];
}

/** The tooltip's pager: "1 / 3". */
function pagerText(index, count) {
  return `${index + 1} / ${count}`;
}

/** The member shown after paging `step` members from `index` (stays inside 0..count-1). */
function steppedIndex(index, step, count) {
  return Math.min(count - 1, Math.max(0, index + step));
}

/** The chip button's aria-label: kind, keyword, position, group size, staleness. */
function ariaLabel(items) {
  const first = items[0];
  let label = `${KIND_LABEL[first.kind]} source: ${first.keyword}`;
  if (first.spoken) label += `, ${first.spoken}`;
  if (items.length > 1) label += `, and ${items.length - 1} more`;
  if (first.note && first.status !== "changed") label += `. ${first.note.text}`;
  if (anyStale(items)) label += `. ${STALE_TEXT}`;
  return label;
}

/** The tooltip's summary: {text, empty}. */
function summaryText(item) {
  return { text: item.summary || NO_SUMMARY_TEXT, empty: !item.summary };
}

/** The tooltip's detail rows, [{label, value, missing}]: the FAQ's question, or unit and lecture. */
function detailRows(item) {
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

if (typeof module !== "undefined" && module && module.exports) {
  module.exports = {
    KIND_LABEL,
    evidenceQuote,
    supportNote,
    STALE_TEXT,
    asObject,
    toInt,
    clock,
    videoRange,
    slideName,
    slidePhrase,
    slideHeading,
    headingText,
    isStale,
    chipStatus,
    statusNote,
    describe,
    isClickable,
    isBlocked,
    clickValue,
    actionHint,
    anyStale,
    anyGone,
    moreLabel,
    pagerText,
    pagedMembers,
    steppedIndex,
    ariaLabel,
    summaryText,
    detailRows,
  };
}


/*
 * Citation chips: the Artemis-like client renderer, one Streamlit custom component (v2).
 *
 * citation_core/lms/chips.py builds the component module from citation_parser.js, chip_model.js
 * and this file, in that order, so the parsers (parseMarker, groupCandidates, citationKind) and the
 * chip model (describe, clickValue, actionHint, ariaLabel, clock, ...) are in scope; this file only
 * draws and wires. It holds the module's one export. Data contract (`component.data`):
 *   {html:  answer HTML from render_markdown (pre-escaped; markers are <span class="cite-raw">),
 *    units: {"<unit id>": {lectureTitle, lectureUnitTitle, lectureId, courseId,
 *                          attachmentVersion, videoVersion, hasDeck, hasVideo,
 *                          slides: {"<deck index>": {printed: string|null, title}},
 *                          released?: bool, hiddenPages?: [deck index, ...]}},
 *    faqs:  {"<faq id>": {question}},
 *    evidence?: {"<marker as written>": [{quote, full, verdict, reason}, ...]}}  one entry per
 *           occurrence of that marker in answer order (citation_core/lms/evidence_view.py)
 * Text for people never shows a marker's deck index (`page`); see chip_model.js for how slides,
 * positions and hints are worded.
 * Click contract (trigger "click"):
 *   slide  {kind: "slide", unitId, page, nonce, quote?}   quote: the evidence, to light up on the slide
 *   video  {kind: "video", unitId, start, end, nonce, quote?}   or in the transcript
 *   unit   {kind: "unit", unitId, stale, reason, cited, nonce}   opens the unit without a position:
 *          reason "changed" (stored version differs, stale: true), "gone" (the unit has no deck or
 *          video any more, or not that slide) or "position" (a lecture citation without one);
 *          cited: the chip's kind ("slide", "video" or "source")
 *   FAQ chips send nothing, nor do chips whose unit is not in `units`, is not released
 *   (`released: false`) or whose slide is hidden (`hiddenPages`); their tooltip says why.
 * The answer HTML is the only innerHTML; every other text goes through textContent.
 */

const SVG_NS = "http://www.w3.org/2000/svg";

// Icon drawings (24x24 viewBox, stroked): [element, attributes] pairs. Trusted constants.
const ICONS = {
  slide: [
    ["rect", { x: "2.5", y: "3.5", width: "19", height: "13", rx: "2" }],
    ["path", { d: "M12 16.5V20.5M8 20.5h8" }],
  ],
  video: [
    ["circle", { cx: "12", cy: "12", r: "9.5" }],
    ["path", { d: "M10 8.5v7l5.5-3.5z", fill: "currentColor" }],
  ],
  faq: [
    ["circle", { cx: "12", cy: "12", r: "9.5" }],
    ["path", { d: "M9.3 9.3a2.8 2.8 0 0 1 5.4 1c0 1.9-2.7 2.5-2.7 4" }],
    ["path", { d: "M12 17.4h.01" }],
  ],
  source: [
    ["path", { d: "M14 2.5H6.5a2 2 0 0 0-2 2v15a2 2 0 0 0 2 2h11a2 2 0 0 0 2-2V8z" }],
    ["path", { d: "M14 2.5V8h5.5M8.5 13h7M8.5 17h5" }],
  ],
  warning: [
    ["path", { d: "M10.3 4 2.2 18a2 2 0 0 0 1.7 3h16.2a2 2 0 0 0 1.7-3L13.7 4a2 2 0 0 0-3.4 0z" }],
    ["path", { d: "M12 9.5v4M12 17.2h.01" }],
  ],
  prev: [["path", { d: "M14.5 6 8.5 12l6 6" }]],
  next: [["path", { d: "M9.5 6l6 6-6 6" }]],
};

const HIDE_DELAY_MS = 140;

let clickCounter = 0;
let renderCounter = 0;

/** A fresh nonce for every click, so the same chip clicked twice still triggers. */
function nextNonce() {
  clickCounter += 1;
  return `${Date.now().toString(36)}-${clickCounter}`;
}

function icon(name, className) {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("fill", "none");
  svg.setAttribute("stroke", "currentColor");
  svg.setAttribute("stroke-width", "2");
  svg.setAttribute("stroke-linecap", "round");
  svg.setAttribute("stroke-linejoin", "round");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  svg.setAttribute("class", className || "cite-icon");
  for (const [tag, attrs] of ICONS[name] || ICONS.source) {
    const el = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    svg.appendChild(el);
  }
  return svg;
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

/**
 * Builds one chip (a button plus its tooltip card) for a group of parsed markers. The card shows
 * one member at a time (`chip.index`); the button opens the member the card shows.
 */
function buildChip(markers, ctx, raws) {
  const items = markers.map((m, k) => describe(m, ctx.units, ctx.faqs, ctx.evidenceFor(raws ? raws[k] : null)));
  const tipId = `cite-tip-${ctx.renderId}-${ctx.nextId()}`;
  const paged = pagedMembers(items);
  const chip = {
    items,
    paged, // the members the card pages through (those with a summary)
    position: 0, // index into `paged`
    index: paged[0], // the member shown
    wrap: el("span", "cite-chip-wrap"),
    button: chipButton(items, tipId),
    tip: tooltipCard(tipId),
  };
  chip.page = (step, from) => pageChip(chip, step, from, ctx);
  showMember(chip);
  chip.wrap.append(chip.button, chip.tip);
  wireChip(chip, ctx);
  return chip.wrap;
}

/** The chip's button: kind icon, keyword, "+N" for a group, a warning when any member is stale. */
function chipButton(items, tipId) {
  const first = items[0];
  const button = el("button", `cite-chip cite-chip--${first.kind}`);
  button.type = "button";
  button.setAttribute("aria-label", ariaLabel(items));
  button.setAttribute("aria-describedby", tipId);
  button.dataset.kind = first.kind;
  if (anyStale(items)) button.classList.add("cite-chip--stale");
  if (anyGone(items)) button.classList.add("cite-chip--gone");
  if (items.length > 1) button.classList.add("cite-chip--group");
  button.appendChild(icon(first.kind, "cite-chip__icon"));
  button.appendChild(el("span", "cite-chip__label", first.keyword));
  if (items.length > 1) button.appendChild(el("span", "cite-chip__more", moreLabel(items)));
  if (anyStale(items) || anyGone(items) || items.some(isBlocked)) {
    button.appendChild(icon("warning", "cite-chip__warn"));
  }
  return button;
}

/**
 * Marks the button inert (not clickable) while the card shows a member that sends nothing; a
 * lecture member that cannot be opened (unknown, unreleased, hidden) also looks blocked.
 */
function setClickable(button, item) {
  const clickable = isClickable(item);
  button.classList.toggle("cite-chip--inert", !clickable);
  button.classList.toggle("cite-chip--blocked", isBlocked(item));
  if (clickable) button.removeAttribute("aria-disabled");
  else button.setAttribute("aria-disabled", "true");
}

function tooltipCard(tipId) {
  const tip = el("div", "cite-tip");
  tip.id = tipId;
  tip.setAttribute("role", "tooltip");
  return tip;
}

/** Fills the card with the member at `chip.index` and updates the button to match it. */
function showMember(chip) {
  const item = chip.items[chip.index];
  fillTooltip(chip.tip, item, chip.position, chip.paged.length, chip.page);
  setClickable(chip.button, item);
}

/** Moves the card by `step` members; `from` is the pager button used (null for the arrow keys). */
function pageChip(chip, step, from, ctx) {
  const nextPosition = steppedIndex(chip.position, step, chip.paged.length);
  if (nextPosition === chip.position) return;
  chip.position = nextPosition;
  chip.index = chip.paged[nextPosition];
  showMember(chip);
  ctx.place(chip.wrap, chip.button, chip.tip);
  // keep keyboard focus inside the card after it was rebuilt
  if (from) {
    const again = chip.tip.querySelector(step < 0 ? ".cite-tip__nav--prev" : ".cite-tip__nav--next");
    const target = again && !again.disabled ? again : chip.tip.querySelector(".cite-tip__nav:not([disabled])");
    if (target) target.focus();
    else chip.button.focus();
  }
}

/** The card for one member: stale notice, header, summary, details, hint and pager. */
function fillTooltip(tip, item, index, count, page) {
  tip.replaceChildren();
  tip.dataset.kind = item.kind;
  if (item.note) tip.appendChild(statusNotice(item.note));
  tip.append(tooltipHead(item), tooltipSummary(item));
  const quote = evidenceQuote(item);
  // an FAQ reads as question, then the quoted part of its answer; a slide or video as quote, then unit
  if (item.kind === "faq") tip.appendChild(tooltipRows(item));
  if (quote) tip.appendChild(tooltipQuote(quote));
  const support = supportNote(item);
  if (support) tip.appendChild(statusNotice(support));
  if (item.kind !== "faq") tip.appendChild(tooltipRows(item));
  const hint = actionHint(item);
  if (hint || count > 1) tip.appendChild(tooltipFoot(hint, index, count, page));
}

/** Why the chip does not jump to its position: a warning (changed, unreleased, hidden) or an error. */
function statusNotice(note) {
  const box = el("div", `cite-tip__stale cite-tip__notice--${note.level}`);
  box.setAttribute("role", "note");
  box.appendChild(icon("warning", "cite-tip__stale-icon"));
  box.appendChild(el("span", null, note.text));
  return box;
}

function tooltipHead(item) {
  const head = el("div", "cite-tip__head");
  const badge = el("span", `cite-tip__badge cite-tip__badge--${item.kind}`);
  badge.appendChild(icon(item.kind, "cite-tip__badge-icon"));
  head.appendChild(badge);
  const titles = el("div", "cite-tip__titles");
  titles.appendChild(el("div", "cite-tip__keyword", item.keyword));
  const where = el("div", "cite-tip__where");
  if (item.heading.title) {
    // the header is set in capitals; the slide's title keeps its own spelling
    where.append(`${item.heading.text} `, el("span", "cite-tip__where-title", quoted(item.heading.title)));
  } else {
    where.textContent = item.heading.text;
  }
  titles.appendChild(where);
  head.appendChild(titles);
  return head;
}

function tooltipSummary(item) {
  const { text, empty } = summaryText(item);
  const summary = el("div", "cite-tip__summary", text);
  if (empty) summary.classList.add("cite-tip__summary--empty");
  return summary;
}

/** The evidence: the words of the source that support the sentence, quoted. */
function tooltipQuote(quote) {
  const box = el("figure", "cite-tip__quote");
  box.appendChild(el("figcaption", "cite-tip__quote-label", quote.label));
  box.appendChild(el("blockquote", "cite-tip__quote-text", quote.text));
  return box;
}

function tooltipRows(item) {
  const rows = el("dl", "cite-tip__rows");
  for (const { label, value, missing } of detailRows(item)) {
    const row = el("div", "cite-tip__row");
    row.appendChild(el("dt", null, label));
    const dd = el("dd", null, value);
    if (missing) dd.classList.add("cite-tip__missing");
    row.appendChild(dd);
    rows.appendChild(row);
  }
  return rows;
}

function tooltipFoot(hint, index, count, page) {
  const foot = el("div", "cite-tip__foot");
  foot.appendChild(el("span", "cite-tip__hint", hint));
  if (count > 1) foot.appendChild(pager(index, count, page));
  return foot;
}

/** "‹ 1 / N ›": pages through a group's members without clicking the chip. */
function pager(index, count, page) {
  const box = el("div", "cite-tip__pager");
  const prev = pagerButton("prev", "Previous source", index === 0, -1, page);
  const next = pagerButton("next", "Next source", index === count - 1, 1, page);
  const counter = el("span", "cite-tip__count", pagerText(index, count));
  counter.setAttribute("aria-live", "polite");
  box.append(prev, counter, next);
  return box;
}

function pagerButton(direction, label, disabled, step, page) {
  const button = el("button", `cite-tip__nav cite-tip__nav--${direction}`);
  button.type = "button";
  button.setAttribute("aria-label", label);
  button.appendChild(icon(direction, "cite-tip__nav-icon"));
  button.disabled = disabled;
  button.addEventListener("click", (event) => {
    event.stopPropagation();
    page(step, button);
  });
  return button;
}

/**
 * Opening and closing the card (hover, keyboard focus, Escape), paging with the arrow keys, and
 * the click that sends the shown member's click value.
 */
function wireChip(chip, ctx) {
  const { wrap, button, tip } = chip;
  let hideTimer = null;
  let suppressFocusOpen = false;
  const show = () => {
    clearTimeout(hideTimer);
    ctx.open(wrap, () => hideNow());
    wrap.classList.add("is-open");
    ctx.place(wrap, button, tip);
  };
  const hideNow = () => {
    clearTimeout(hideTimer);
    wrap.classList.remove("is-open");
  };
  const hideSoon = () => {
    clearTimeout(hideTimer);
    hideTimer = setTimeout(() => {
      // still pointed at, or keyboard focus still inside: stay open
      if (!wrap.matches(":hover") && !keyboardFocusInside()) hideNow();
    }, HIDE_DELAY_MS);
  };
  const keyboardFocusInside = () => wrap.querySelector(":focus-visible") !== null;

  wrap.addEventListener("mouseenter", show);
  wrap.addEventListener("mouseleave", () => {
    if (!keyboardFocusInside()) hideSoon();
  });
  // Keyboard focus opens the card; a mouse click focuses the button without :focus-visible.
  wrap.addEventListener("focusin", (event) => {
    if (suppressFocusOpen) return;
    if (event.target.matches(":focus-visible")) show();
    else if (wrap.classList.contains("is-open")) clearTimeout(hideTimer);
  });
  wrap.addEventListener("focusout", (event) => {
    if (!event.relatedTarget || !wrap.contains(event.relatedTarget)) hideSoon();
  });
  wrap.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && wrap.classList.contains("is-open")) {
      event.stopPropagation();
      hideNow();
      suppressFocusOpen = true;
      button.focus({ preventScroll: true });
      suppressFocusOpen = false;
    } else if (chip.paged.length > 1 && (event.key === "ArrowLeft" || event.key === "ArrowRight")) {
      event.preventDefault();
      show();
      chip.page(event.key === "ArrowLeft" ? -1 : 1, null);
    }
  });
  button.addEventListener("click", (event) => {
    event.preventDefault();
    const value = clickValue(chip.items[chip.index], nextNonce());
    if (value) ctx.send(value);
  });
}

function partOf(node) {
  if (node.nodeType === Node.TEXT_NODE) return { kind: "text", text: node.data };
  if (node.nodeType === Node.ELEMENT_NODE && node.classList.contains("cite-raw")) {
    const raw = node.getAttribute("data-cite");
    return { kind: "cite", raw: raw === null ? node.textContent : raw };
  }
  if (node.nodeType === Node.COMMENT_NODE) return { kind: "text", text: "" };
  return { kind: "other" };
}

/**
 * Renders the answer into `root` and turns marker candidates into chips.
 * `send(value)` receives every click value. Returns a cleanup function.
 */
function renderAnswer(root, data, send) {
  const payload = asObject(data);
  renderCounter += 1;
  let idCounter = 0;
  let openClose = null;
  let openWrap = null;

  const body = el("div", "cite-answer__body");
  // The only innerHTML: render_markdown output, escaped server-side (raw HTML disabled).
  body.innerHTML = typeof payload.html === "string" ? payload.html : "";
  root.appendChild(body);

  // each marker's audits in answer order; a marker written twice takes them one after the other
  const pending = {};
  for (const [raw, entries] of Object.entries(asObject(payload.evidence))) {
    if (Array.isArray(entries)) pending[raw] = entries.slice();
  }
  const ctx = {
    units: asObject(payload.units),
    faqs: asObject(payload.faqs),
    evidenceFor: (raw) => (raw !== null && pending[raw] && pending[raw].length ? pending[raw].shift() : null),
    renderId: renderCounter,
    nextId: () => {
      idCounter += 1;
      return idCounter;
    },
    send,
    open(wrap, close) {
      if (openWrap && openWrap !== wrap && openClose) openClose();
      openWrap = wrap;
      openClose = close;
    },
    place(wrap, button, tip) {
      placeTip(root, wrap, button, tip);
    },
  };

  // Candidates inside code stay code text (render_markdown never emits them there; be safe anyway).
  const parents = [];
  for (const span of Array.from(body.querySelectorAll("span.cite-raw"))) {
    if (span.closest("code, pre")) {
      span.replaceWith(document.createTextNode(span.textContent));
    } else if (!parents.includes(span.parentNode)) {
      parents.push(span.parentNode);
    }
  }
  for (const parent of parents) {
    const nodes = Array.from(parent.childNodes);
    for (const group of groupCandidates(nodes.map(partOf))) {
      if (!group.members) {
        group.indices.forEach((i, k) => nodes[i].replaceWith(document.createTextNode(group.raws[k])));
        continue;
      }
      const chip = buildChip(group.members, ctx, group.raws);
      parent.insertBefore(chip, nodes[group.first]);
      for (let i = group.first; i <= group.last; i += 1) nodes[i].remove();
    }
  }

  const onScroll = () => {
    if (openWrap && openWrap.classList.contains("is-open")) {
      placeTip(root, openWrap, openWrap.querySelector(".cite-chip"), openWrap.querySelector(".cite-tip"));
    }
  };
  window.addEventListener("scroll", onScroll, true);
  window.addEventListener("resize", onScroll);
  return () => {
    window.removeEventListener("scroll", onScroll, true);
    window.removeEventListener("resize", onScroll);
    body.remove();
  };
}

/** Keeps `value` within [low, high]; `low` wins when the range is empty. */
function clamp(value, low, high) {
  return Math.max(low, Math.min(value, high));
}

/**
 * Puts the tooltip above the chip (below when there is no room above it, under the app's top bar),
 * centred on the chip: inside the answer's width where it fits, and always inside the window (an
 * answer narrower than the card, e.g. a chat column at 800 px, lets the card reach out to its left).
 */
function placeTip(root, wrap, button, tip) {
  if (!button || !tip) return;
  tip.classList.remove("is-below");
  tip.style.left = "0px";
  const margin = 8;
  const wrapRect = wrap.getBoundingClientRect();
  const chipRect = button.getBoundingClientRect();
  const tipRect = tip.getBoundingClientRect();
  const rootRect = root.getBoundingClientRect();
  const viewWidth = document.documentElement.clientWidth || window.innerWidth;
  let left = chipRect.left + chipRect.width / 2 - tipRect.width / 2;
  left = clamp(left, rootRect.left, rootRect.right - tipRect.width);
  left = clamp(left, margin, viewWidth - margin - tipRect.width);
  tip.style.left = `${Math.round(left - wrapRect.left)}px`;
  const arrowX = chipRect.left + chipRect.width / 2 - left;
  tip.style.setProperty("--cite-arrow-x", `${Math.round(Math.min(Math.max(arrowX, 14), tipRect.width - 14))}px`);
  if (chipRect.top - tipRect.height - 12 < topEdge()) tip.classList.add("is-below");
}

/** The top of the visible page: below the app's fixed top bar when there is one (Streamlit's header). */
function topEdge() {
  const bar = document.querySelector('[data-testid="stHeader"]');
  if (!bar) return 0;
  const rect = bar.getBoundingClientRect();
  return rect.height > 0 && rect.top <= 0 ? Math.max(0, rect.bottom) : 0;
}

/** Streamlit components v2 entry point. */
export default function mountCitationChips(component) {
  const { parentElement, setTriggerValue } = component;
  // The app sends the data as UTF-8 JSON bytes (studio/chips.py); the preview page passes the object.
  const raw = component.data;
  const data = ArrayBuffer.isView(raw) || raw instanceof ArrayBuffer ? JSON.parse(new TextDecoder().decode(raw)) : raw;
  for (const old of Array.from(parentElement.children)) {
    if (old.classList.contains("cite-answer")) old.remove();
  }
  const root = el("div", "cite-answer");
  parentElement.appendChild(root);
  const cleanup = renderAnswer(root, data, (value) => setTriggerValue("click", value));
  return () => {
    cleanup();
    root.remove();
  };
}
