/*
 * Citation chips: the Artemis-like client renderer, one Streamlit custom component (v2).
 *
 * The Python side (citation_core/lms/chips_component.py) prepends citation_parser.js to this file,
 * so parseMarker, groupCandidates and citationKind are in scope. Data contract (`component.data`):
 *   {html:  answer HTML from render_markdown (pre-escaped; markers are <span class="cite-raw">),
 *    units: {"<unit id>": {lectureTitle, lectureUnitTitle, lectureId, courseId,
 *                          attachmentVersion, videoVersion, hasDeck, hasVideo,
 *                          slides: {"<deck index>": {printed: string|null, title}}}},
 *    faqs:  {"<faq id>": {question}}}
 * Numbers (DESIGN.md section 3): a marker's `page` is the deck index (1-based PDF position). It is
 * what the click value carries, but text for people never shows it: a slide is named by its printed
 * number ("Slide 5"), else by its title (Unnumbered slide “Agenda”), else just "Slide".
 * Click contract (trigger "click"):
 *   slide  {kind: "slide", unitId, page, nonce}
 *   video  {kind: "video", unitId, start, end, nonce}
 *   unit   {kind: "unit", unitId, stale, nonce}   stale chip (stale: true), or a lecture citation
 *          without a position / whose unit has hasDeck or hasVideo false (stale: false)
 *   FAQ chips send nothing.
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

const KIND_LABEL = { slide: "Slide", video: "Video", faq: "FAQ", source: "Source" };
const STALE_TEXT = "The material changed since this answer was written";
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

function asObject(value) {
  return value && typeof value === "object" && !Array.isArray(value) ? value : {};
}

function toInt(value) {
  return /^\d+$/.test(value || "") ? Number.parseInt(value, 10) : null;
}

function formatTime(totalSeconds) {
  const s = Math.max(0, totalSeconds | 0);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

function textOf(value) {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return typeof value === "string" ? value.trim() : "";
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

/** The slide's name for the tooltip header: "Slide 5", Unnumbered slide “Agenda”, or "Slide". */
function slideHeader(name) {
  if (name.printed) return `Slide ${name.printed}`;
  if (name.known) return name.title ? `Unnumbered slide “${name.title}”` : "Unnumbered slide";
  return "Slide";
}

/** A parsed marker plus what the chip needs to show and send. */
function describe(marker, units, faqs) {
  const kind = citationKind(marker);
  const keyword = (marker.keyword || "").trim() || (kind === "faq" ? "FAQ" : "Source");
  const unit = kind === "faq" ? null : asObject(units[marker.entity_id]);
  const faq = kind === "faq" ? asObject(faqs[marker.entity_id]) : null;
  const page = toInt(marker.page);
  const start = toInt(marker.start);
  const end = toInt(marker.end);
  const stale = kind !== "faq" && isStale(marker.version, unit);
  // where: the tooltip header; spoken: the position in the aria-label ("" when there is none)
  let where = KIND_LABEL[kind];
  let spoken = "";
  let slide = null;
  if (kind === "slide") {
    slide = slideName(unit, page, stale);
    where = slideHeader(slide);
    if (slide.printed) spoken = `slide ${slide.printed}`;
    else if (slide.known) spoken = slide.title ? `unnumbered slide “${slide.title}”` : "unnumbered slide";
  }
  if (kind === "video") {
    const range = end !== null && end > start ? `${formatTime(start)}–${formatTime(end)}` : formatTime(start);
    where = `${KIND_LABEL.video} · ${range}`;
    spoken = range;
  }
  return {
    marker,
    kind,
    keyword,
    summary: (marker.summary || "").trim(),
    unit,
    faq,
    page, // deck index: only for the click value, never shown
    start,
    end,
    slide,
    where,
    spoken,
    stale,
    // the unit says it has no deck / no video: open the unit instead of a position it cannot show
    unavailable: (kind === "slide" && unit.hasDeck === false) || (kind === "video" && unit.hasVideo === false),
  };
}

/** Stored version older than the unit's current material (va: deck, vt: transcript). */
function isStale(version, unit) {
  const m = /^v([at])(\d+)$/.exec(version || "");
  if (!m || !unit) return false;
  const current = m[1] === "a" ? unit.attachmentVersion : unit.videoVersion;
  const now = Number(current);
  return current !== null && current !== undefined && current !== "" && Number.isFinite(now) && Number(m[2]) < now;
}

/** The click value for one member, or null (FAQ chips are not clickable). */
function clickValue(item) {
  const unitId = item.marker.entity_id;
  if (item.kind === "faq") return null;
  if (item.stale) return { kind: "unit", unitId, stale: true, nonce: nextNonce() };
  if (item.unavailable) return { kind: "unit", unitId, stale: false, nonce: nextNonce() };
  if (item.kind === "slide") return { kind: "slide", unitId, page: item.page, nonce: nextNonce() };
  if (item.kind === "video") return { kind: "video", unitId, start: item.start, end: item.end, nonce: nextNonce() };
  return { kind: "unit", unitId, stale: false, nonce: nextNonce() };
}

function actionHint(item) {
  if (item.kind === "faq") return "";
  if (item.stale || item.unavailable) return "Click to open the unit";
  if (item.kind === "slide") {
    const name = item.slide;
    if (name.printed) return `Click to open slide ${name.printed}`;
    if (name.known) return name.title ? `Click to open the unnumbered slide “${name.title}”` : "Click to open the unnumbered slide";
    return "Click to open the slide";
  }
  if (item.kind === "video") return `Click to play from ${formatTime(item.start)}`;
  return "Click to open the unit";
}

function ariaLabel(items) {
  const first = items[0];
  let label = `${KIND_LABEL[first.kind]} source: ${first.keyword}`;
  if (first.spoken) label += `, ${first.spoken}`;
  if (items.length > 1) label += `, and ${items.length - 1} more`;
  if (items.some((i) => i.stale)) label += ". The material changed since this answer was written";
  return label;
}

/** Builds one chip (a button plus its tooltip card) for a group of parsed markers. */
function buildChip(markers, ctx) {
  const items = markers.map((m) => describe(m, ctx.units, ctx.faqs));
  const first = items[0];
  const tipId = `cite-tip-${ctx.renderId}-${ctx.nextId()}`;
  let index = 0;

  const wrap = el("span", "cite-chip-wrap");
  const button = el("button", `cite-chip cite-chip--${first.kind}`);
  button.type = "button";
  button.setAttribute("aria-label", ariaLabel(items));
  button.setAttribute("aria-describedby", tipId);
  button.dataset.kind = first.kind;
  if (items.some((i) => i.stale)) button.classList.add("cite-chip--stale");
  if (items.length > 1) button.classList.add("cite-chip--group");
  button.appendChild(icon(first.kind, "cite-chip__icon"));
  button.appendChild(el("span", "cite-chip__label", first.keyword));
  if (items.length > 1) button.appendChild(el("span", "cite-chip__more", `+${items.length - 1}`));
  if (items.some((i) => i.stale)) button.appendChild(icon("warning", "cite-chip__warn"));

  const tip = el("div", "cite-tip");
  tip.id = tipId;
  tip.setAttribute("role", "tooltip");

  function updateClickable() {
    const current = items[index];
    const clickable = current.kind !== "faq";
    button.classList.toggle("cite-chip--inert", !clickable);
    if (clickable) button.removeAttribute("aria-disabled");
    else button.setAttribute("aria-disabled", "true");
  }

  function fill() {
    const item = items[index];
    tip.replaceChildren();
    tip.dataset.kind = item.kind;

    if (item.stale) {
      const warn = el("div", "cite-tip__stale");
      warn.appendChild(icon("warning", "cite-tip__stale-icon"));
      warn.appendChild(el("span", null, STALE_TEXT));
      tip.appendChild(warn);
    }

    const head = el("div", "cite-tip__head");
    const badge = el("span", `cite-tip__badge cite-tip__badge--${item.kind}`);
    badge.appendChild(icon(item.kind, "cite-tip__badge-icon"));
    head.appendChild(badge);
    const titles = el("div", "cite-tip__titles");
    titles.appendChild(el("div", "cite-tip__keyword", item.keyword));
    const where = el("div", "cite-tip__where");
    if (item.slide && !item.slide.printed && item.slide.title) {
      // the header is set in capitals; the slide's title keeps its own spelling
      where.append("Unnumbered slide ", el("span", "cite-tip__where-title", `“${item.slide.title}”`));
    } else {
      where.textContent = item.where;
    }
    titles.appendChild(where);
    head.appendChild(titles);
    tip.appendChild(head);

    const summary = el("div", "cite-tip__summary", item.summary || "No summary available.");
    if (!item.summary) summary.classList.add("cite-tip__summary--empty");
    tip.appendChild(summary);

    const rows = el("dl", "cite-tip__rows");
    const addRow = (label, value, missing) => {
      const row = el("div", "cite-tip__row");
      row.appendChild(el("dt", null, label));
      const dd = el("dd", null, value);
      if (missing) dd.classList.add("cite-tip__missing");
      row.appendChild(dd);
      rows.appendChild(row);
    };
    if (item.kind === "faq") {
      const question = (item.faq && item.faq.question) || "";
      addRow("Question", question || `FAQ ${item.marker.entity_id} (not found)`, !question);
    } else {
      const unitTitle = (item.unit && item.unit.lectureUnitTitle) || "";
      const lectureTitle = (item.unit && item.unit.lectureTitle) || "";
      addRow("Unit", unitTitle || `Unit ${item.marker.entity_id} (not found)`, !unitTitle);
      if (lectureTitle) addRow("Lecture", lectureTitle, false);
    }
    tip.appendChild(rows);

    const hint = actionHint(item);
    if (hint || items.length > 1) {
      const foot = el("div", "cite-tip__foot");
      foot.appendChild(el("span", "cite-tip__hint", hint));
      if (items.length > 1) {
        const pager = el("div", "cite-tip__pager");
        const prev = el("button", "cite-tip__nav cite-tip__nav--prev");
        prev.type = "button";
        prev.setAttribute("aria-label", "Previous source");
        prev.appendChild(icon("prev", "cite-tip__nav-icon"));
        prev.disabled = index === 0;
        prev.addEventListener("click", (event) => {
          event.stopPropagation();
          page(-1, prev);
        });
        const next = el("button", "cite-tip__nav cite-tip__nav--next");
        next.type = "button";
        next.setAttribute("aria-label", "Next source");
        next.appendChild(icon("next", "cite-tip__nav-icon"));
        next.disabled = index === items.length - 1;
        next.addEventListener("click", (event) => {
          event.stopPropagation();
          page(1, next);
        });
        const count = el("span", "cite-tip__count", `${index + 1} / ${items.length}`);
        count.setAttribute("aria-live", "polite");
        pager.append(prev, count, next);
        foot.appendChild(pager);
      }
      tip.appendChild(foot);
    }
    updateClickable();
  }

  function page(step, from) {
    const nextIndex = Math.min(items.length - 1, Math.max(0, index + step));
    if (nextIndex === index) return;
    index = nextIndex;
    fill();
    ctx.place(wrap, button, tip);
    // keep keyboard focus inside the card after it was rebuilt
    if (from && from.classList.contains("cite-tip__nav")) {
      const again = tip.querySelector(step < 0 ? ".cite-tip__nav--prev" : ".cite-tip__nav--next");
      const target = again && !again.disabled ? again : tip.querySelector(".cite-tip__nav:not([disabled])");
      if (target) target.focus();
      else button.focus();
    }
  }

  fill();
  wrap.append(button, tip);

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
    } else if (items.length > 1 && (event.key === "ArrowLeft" || event.key === "ArrowRight")) {
      event.preventDefault();
      show();
      page(event.key === "ArrowLeft" ? -1 : 1, null);
    }
  });
  button.addEventListener("click", (event) => {
    event.preventDefault();
    const value = clickValue(items[index]);
    if (value) ctx.send(value);
  });

  return wrap;
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

  const ctx = {
    units: asObject(payload.units),
    faqs: asObject(payload.faqs),
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
      const chip = buildChip(group.members, ctx);
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

/** Puts the tooltip above the chip (below when there is no room), inside the answer's width. */
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
  const minLeft = Math.max(rootRect.left, margin);
  const maxRight = Math.min(Math.max(rootRect.right, minLeft + tipRect.width), viewWidth - margin);
  let left = chipRect.left + chipRect.width / 2 - tipRect.width / 2;
  left = Math.min(left, maxRight - tipRect.width);
  left = Math.max(left, minLeft);
  tip.style.left = `${Math.round(left - wrapRect.left)}px`;
  const arrowX = chipRect.left + chipRect.width / 2 - left;
  tip.style.setProperty("--cite-arrow-x", `${Math.round(Math.min(Math.max(arrowX, 14), tipRect.width - 14))}px`);
  if (chipRect.top - tipRect.height - 12 < 0) tip.classList.add("is-below");
}

/** Streamlit components v2 entry point. */
export default function mountCitationChips(component) {
  const { data, parentElement, setTriggerValue } = component;
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
