/*
 * Citation chips: the Artemis-like client renderer, one Streamlit custom component (v2).
 *
 * The component's entry module (Streamlit loads it from the package's asset folder, see
 * citation_core/lms/chips.py): it imports the parsers (parseMarker, groupCandidates, ...) from
 * citation_parser.js and the chip model (describe, clickValue, actionHint, ariaLabel, clock, ...)
 * from chip_model.js; this file only draws and wires. Data contract (`component.data`):
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
 *          reason "changed" (stored version older, stale: true), "newer" (stored version newer: a
 *          citation from another copy of the material, stale: false), "gone" (the unit has no deck or
 *          video any more, or not that slide) or "position" (a lecture citation without one);
 *          cited: the chip's kind ("slide", "video" or "source")
 *   FAQ chips send nothing, nor do chips whose unit is not in `units`, is not released
 *   (`released: false`) or whose slide is hidden (`hiddenPages`); their tooltip says why.
 * The answer HTML is the only innerHTML; every other text goes through textContent.
 */

import {
  groupCandidates,
} from "./citation_parser.js";
import {
  asObject,
  quoted,
  describe,
  isClickable,
  isBlocked,
  clickValue,
  evidenceQuote,
  supportNote,
  actionHint,
  anyStale,
  anyNewer,
  anyGone,
  moreLabel,
  pagedMembers,
  pagerText,
  steppedIndex,
  ariaLabel,
  summaryText,
  detailRows,
} from "./chip_model.js";

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

/** The chip's button: kind icon, keyword, "+N" for a group, a warning when any member is stale or newer. */
function chipButton(items, tipId) {
  const first = items[0];
  const button = el("button", `cite-chip cite-chip--${first.kind}`);
  button.type = "button";
  button.setAttribute("aria-label", ariaLabel(items));
  button.setAttribute("aria-describedby", tipId);
  button.dataset.kind = first.kind;
  if (anyStale(items)) button.classList.add("cite-chip--stale");
  if (anyNewer(items)) button.classList.add("cite-chip--newer");
  if (anyGone(items)) button.classList.add("cite-chip--gone");
  if (items.length > 1) button.classList.add("cite-chip--group");
  button.appendChild(icon(first.kind, "cite-chip__icon"));
  button.appendChild(el("span", "cite-chip__label", first.keyword));
  if (items.length > 1) button.appendChild(el("span", "cite-chip__more", moreLabel(items)));
  if (anyStale(items) || anyNewer(items) || anyGone(items) || items.some(isBlocked)) {
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

/** Why the chip does not jump to its position: a warning (changed, newer, unreleased, hidden) or an error. */
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

/** The drawing number of a page element holding an answer being written (keyed `partial-<n>`), else null. */
function draftNumber(node) {
  const m = /(?:^|\s)st-key-partial-(\d+)(?=\s|$)/.exec(typeof node.className === "string" ? node.className : "");
  return m ? Number(m[1]) : null;
}

/**
 * An answer being written is redrawn into a ring of page slots (pages/ask.py, components keyed
 * `partial-<n>`, n counting up): a new drawing is empty until this script has run, so the drawings before it
 * stay in their slots. Once one has drawn, the newest drawn one is shown and the others hidden, in one task,
 * so no frame shows none or two; a drawing whose script runs late (the first loads it) never hides a newer
 * one. A component that is not such a drawing changes nothing.
 */
function supersedeEarlierDraft(parentElement) {
  const rootNode = parentElement.getRootNode();
  const host = rootNode instanceof ShadowRoot ? rootNode.host : parentElement;
  const mine = host.closest ? host.closest('[class*="st-key-partial-"]') : null;
  const number = mine ? draftNumber(mine) : null;
  if (number === null || !mine.parentElement) return;
  mine.dataset.citeDrawn = String(number);
  const drawn = Array.from(mine.parentElement.children).filter(
    (node) => draftNumber(node) !== null && node.dataset.citeDrawn === String(draftNumber(node)));
  const newest = Math.max(...drawn.map(draftNumber));
  for (const node of drawn) node.style.display = draftNumber(node) === newest ? "" : "none";
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
  supersedeEarlierDraft(parentElement);
  return () => {
    cleanup();
    root.remove();
  };
}
