/*
 * The transcript beside the video: every cue with its time; the cues a clicked citation quotes are
 * lit up and scrolled into the panel's view; while the video plays, the playing cue is marked and
 * the panel follows it (unless the reader scrolled the panel in the last few seconds). Clicking a
 * cue's time seeks the player there. Only the panel scrolls, never the page.
 *
 * Data (`component.data`): {cues: [{start, end, text, time}], cited: [index, ...], player: "<key>"}
 * where `player` is the Streamlit key of the container holding the <video> element.
 * Every text goes through textContent.
 */

const FOLLOW_PAUSE_MS = 4000;
const FIND_VIDEO_MS = 400;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Scrolls `panel` so that `row` stands near its top (the page itself does not move). */
function reveal(panel, row, smooth) {
  const top = row.offsetTop - panel.offsetTop - 8;
  const visible = top >= panel.scrollTop && top + row.offsetHeight <= panel.scrollTop + panel.clientHeight;
  if (!visible) panel.scrollTo({ top: Math.max(0, top), behavior: smooth ? "smooth" : "auto" });
}

/** The cue playing at `t`: the last one that started at or before it. */
function playingAt(cues, t) {
  let found = -1;
  for (let i = 0; i < cues.length; i += 1) {
    if (cues[i].start <= t) found = i;
    else break;
  }
  return found;
}

export default function mountTranscript(component) {
  const { data, parentElement } = component;
  const cues = Array.isArray(data && data.cues) ? data.cues : [];
  const cited = new Set(Array.isArray(data && data.cited) ? data.cited : []);
  const playerKey = typeof (data && data.player) === "string" ? data.player : "";
  for (const old of Array.from(parentElement.children)) {
    if (old.classList.contains("transcript")) old.remove();
  }
  const panel = el("div", "transcript");
  panel.setAttribute("role", "list");
  panel.setAttribute("aria-label", "Transcript");
  const rows = cues.map((cue, i) => {
    const row = el("div", "transcript__cue");
    row.setAttribute("role", "listitem");
    row.dataset.index = String(i);
    if (cited.has(i)) row.classList.add("is-cited");
    const time = el("button", "transcript__time", typeof cue.time === "string" ? cue.time : "");
    time.type = "button";
    time.title = "Play from here";
    time.addEventListener("click", () => {
      const video = findVideo();
      if (video && Number.isFinite(cue.start)) {
        video.currentTime = cue.start;
        follow.pausedUntil = 0;
      }
    });
    row.append(time, el("span", "transcript__text", typeof cue.text === "string" ? cue.text : ""));
    panel.appendChild(row);
    return row;
  });
  parentElement.appendChild(panel);

  const first = rows.find((r) => r.classList.contains("is-cited"));
  if (first) requestAnimationFrame(() => reveal(panel, first, false));

  const follow = { pausedUntil: 0, active: -1, video: null };
  panel.addEventListener("wheel", () => { follow.pausedUntil = Date.now() + FOLLOW_PAUSE_MS; }, { passive: true });
  panel.addEventListener("touchmove", () => { follow.pausedUntil = Date.now() + FOLLOW_PAUSE_MS; }, { passive: true });

  function findVideo() {
    const holder = playerKey ? document.querySelector(`.st-key-${CSS.escape(playerKey)}`) : null;
    return (holder || document).querySelector("video");
  }
  function onTime() {
    const video = follow.video;
    if (!video) return;
    const index = playingAt(cues, video.currentTime);
    if (index === follow.active) return;
    if (follow.active >= 0 && rows[follow.active]) rows[follow.active].classList.remove("is-playing");
    follow.active = index;
    if (index < 0) return;
    rows[index].classList.add("is-playing");
    if (!video.paused && Date.now() > follow.pausedUntil) reveal(panel, rows[index], true);
  }
  // the player is mounted again on every jump: look for the current one now and then
  const timer = setInterval(() => {
    const video = findVideo();
    if (video === follow.video) return;
    if (follow.video) follow.video.removeEventListener("timeupdate", onTime);
    follow.video = video;
    if (video) video.addEventListener("timeupdate", onTime);
  }, FIND_VIDEO_MS);

  return () => {
    clearInterval(timer);
    if (follow.video) follow.video.removeEventListener("timeupdate", onTime);
    panel.remove();
  };
}
