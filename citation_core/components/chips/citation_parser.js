/*
 * Citation marker parsers for the chip renderer (the Artemis client side of DESIGN 2).
 *
 * An ES module without imports: chip_model.js and chips.js import it, the browser loads it from the
 * package's asset folder beside them, and the node tests import it. Every parser returns objects
 * shaped exactly like the contract test vectors
 * (citation_core/contract/vectors.json):
 *   {span: [start, end], type, entity_id, page, start, end, keyword, summary, seq, version}
 * Field values are strings exactly as written, null where the pattern does not carry them;
 * `span` is in Unicode code points (the vectors use Python offsets), not JavaScript UTF-16 units.
 */

// Iris intermediate pattern. Python's \d is any Unicode decimal digit: \p{Nd} mirrors it.
export const IRIS_PATTERN = /\[cite:([LF]):([^:\]]*):([^:\]]*):([^:\]]*):([^:\]]*)!(\p{Nd}+)\]/gu;
// Artemis server pattern (IrisCitationService, Java: \d is ASCII only), with capture groups.
export const SERVER_PATTERN = /\[cite:(L):([0-9]+):([^:\]]*):([^:\]]*):([^:\]]*):([^:\]]*):([^\]]*)\]/gu;
// Artemis client pattern (iris-citation-text.model.ts), verbatim.
export const CLIENT_PATTERN = /\[cite:[LF]:[^:[\]]+:[^:[\]]*:[^:[\]]*:[^:[\]]*:[^:[\]]*:[^[\]]*\]/g;
// A version field is the last ":"-part of the summary when it matches this.
export const VERSION_FIELD = /^v[at][0-9]+$/;

/** Converts UTF-16 indices of one text to code-point offsets (indices must not decrease). */
export function codePointCounter(text) {
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

export function markerMatch(span, type, entityId, page, start, end, keyword, summary, seq, version) {
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

export function freshPattern(pattern) {
  return new RegExp(pattern.source, pattern.flags);
}

/** Intermediate markers `[cite:type:id:page:start:end!seq]` (what Iris accepts). */
export function parseIris(text) {
  const toPoints = codePointCounter(String(text));
  const out = [];
  for (const m of String(text).matchAll(freshPattern(IRIS_PATTERN))) {
    const span = [toPoints(m.index), toPoints(m.index + m[0].length)];
    out.push(markerMatch(span, m[1], m[2], m[3], m[4], m[5], null, null, m[6], null));
  }
  return out;
}

/** Final/stored markers as the Artemis server resolves them (L only, numeric id). */
export function parseServer(text) {
  const toPoints = codePointCounter(String(text));
  const out = [];
  for (const m of String(text).matchAll(freshPattern(SERVER_PATTERN))) {
    const span = [toPoints(m.index), toPoints(m.index + m[0].length)];
    out.push(markerMatch(span, m[1], m[2], m[3], m[4], m[5], m[6], m[7], null, null));
  }
  return out;
}

/** The Artemis client: client pattern, split on ":", at least 7 parts, summary = parts 6.. joined. */
export function parseClientWith(text, splitVersion) {
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

export function parseClient(text) {
  return parseClientWith(text, false);
}

/** Final and stored markers: the client parse, then a trailing `va<N>`/`vt<N>` split off the summary. */
export function parseStored(text) {
  return parseClientWith(text, true);
}

/** One whole marker (the text of one candidate), or null when it is not exactly one stored marker. */
export function parseMarker(raw) {
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
export function groupCandidates(parts) {
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
export function citationKind(marker) {
  if (marker.type === "F") return "faq";
  if (marker.start || marker.end) return "video";
  if (marker.page) return "slide";
  return "source";
}

/** The chip's label as the Artemis client writes it: the keyword, trimmed, else "FAQ" or "Source". */
export function citationLabel(marker) {
  const keyword = (marker.keyword || "").trim();
  return keyword || (marker.type === "F" ? "FAQ" : "Source");
}

/**
 * The pinned material version as the Artemis client reads it (parseTrailingVersion):
 * {kind: "attachment" | "video", version: "<digits>"} from a trailing va<N> / vt<N>, else null.
 */
export function pinnedVersion(marker) {
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
export function artemisGroups(text) {
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
