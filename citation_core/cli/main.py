"""``citation-studio``: cite, audit, parse, deck, transcript, course, ask, render, bench.

Bad input exits with code 2 and one line on stderr naming the file or field and what is wrong; a
failed run exits with 1 and one line. No input makes it print a traceback: anything unexpected is
reported as one line ("internal error") with exit code 1.

Output text is written as it is, except what a terminal would take for a command or what would reorder the
line: control characters other than line breaks and tabs (an ESC in a unit name sets the window title or clears
the screen), DEL and the C1 controls, and the bidirectional overrides and isolates (U+202E) are written as
backslash escapes (``\\x1b``, ``\\u202e``), in JSON output as the standard JSON escapes (``\\u001b``). Characters
the output stream cannot encode (a lone surrogate from a sources file, say) are written as backslash escapes too.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from ..contract import PATTERN_NAMES, parse
from ..errors import CitationStudioError, InputError, MarkerError
from ..llm.config import CHAT_PIPELINE, VARIANTS, LlmConfig, default_config, load_config

EXIT_BAD_INPUT = 2
EXIT_FAILED = 1


def _config(args: argparse.Namespace) -> LlmConfig:
    return load_config(Path(args.config_dir)) if args.config_dir else default_config()


# what a terminal obeys or reorders: C0 controls but line feed and tab, DEL, C1 controls, bidi overrides/isolates
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _safe(text: str, escape: Callable[[str], str] = lambda ch: ch.encode("unicode_escape").decode("ascii")) -> str:
    """``text`` with every character a terminal would obey or reorder by written as an escape."""
    return _UNSAFE.sub(lambda m: escape(m.group(0)), text)


def _write(text: str, stream: TextIO | None = None) -> None:
    """``text`` on stdout (or ``stream``), terminal controls escaped, and characters the stream cannot encode as
    backslash escapes."""
    out = stream or sys.stdout
    text = _safe(text)
    try:
        out.write(text)
    except UnicodeEncodeError:
        encoding = getattr(out, "encoding", None) or "utf-8"
        out.write(text.encode(encoding, "backslashreplace").decode(encoding))


def _print(line: str) -> None:
    _write(line + "\n")


def _warn(line: str) -> None:
    """One line on stderr, terminal controls escaped."""
    _write(line + "\n", sys.stderr)


def _emit(data: Any) -> None:
    # JSON escapes C0 controls itself; DEL, C1 controls and bidi controls are escaped the same way (\u009b)
    def dumped(ascii_only: bool) -> str:
        return _safe(json.dumps(data, ensure_ascii=ascii_only, indent=2), lambda ch: f"\\u{ord(ch):04x}") + "\n"

    try:
        sys.stdout.write(dumped(False))
    except UnicodeEncodeError:  # the same JSON with \uXXXX escapes for what the stream cannot take
        sys.stdout.write(dumped(True))


def _read_text(path: str, what: str) -> str:
    """A text file (or stdin for ``-``), byte for byte: line endings are kept as written."""
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        p = Path(path)
        if not p.is_file():
            raise InputError(f"{path}: {what} file {'is a directory' if p.is_dir() else 'not found'}")
        try:
            data = p.read_bytes()
        except OSError as err:
            raise InputError(f"{path}: cannot read the {what} file ({err.strerror or type(err).__name__})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path}: {what} file is not UTF-8 text") from None


def cmd_cite(args: argparse.Namespace) -> int:
    from ..pipeline import CitationPipeline
    from ..sources import Sources

    sources = Sources.load(Path(args.sources))
    answer = _read_text(args.answer, "answer")
    pipeline = CitationPipeline.from_config(_config(args), args.variant)
    cited = pipeline(answer, sources, language=args.lang)
    if args.json:
        _emit(cited.to_json())
    else:
        _write(cited.answer + ("" if cited.answer.endswith("\n") else "\n"))
        for f in cited.failures:
            _warn(f"warning: {f.kind}: {f.message}")
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    from ..pipeline import CitationPipeline
    from ..pipeline.audit import audit
    from ..sources import Sources

    sources = Sources.load(Path(args.sources))
    judge = CitationPipeline.from_config(_config(args)).judge  # the judge role, when application.yml has one
    try:  # a marker that breaks the contract is bad input: one line naming the file and the marker
        audits = audit(_read_text(args.answer, "answer"), sources, judge, strict=True)
    except MarkerError as exc:
        raise MarkerError(f"{args.answer}: {exc}") from None
    if args.json:
        _emit({"audits": [a.to_json() for a in audits]})
        return 0
    for a in audits:
        c = a.citation
        where = f"page {c['page']}" if c["page"] is not None else (
            f"{c['start']}–{c['end']} s" if c["start"] is not None else "FAQ")
        _print(f"{a.support.verdict.upper():<11} {a.support.score:.2f}  {c['type']}:{c['entity_id']} {where} "
               f"“{c['keyword']}”")
        _print(f"  sentence: {a.sentence}")
        _print(f"  evidence: {' '.join(a.evidence.text.split()) if a.evidence else '(none)'}")
        _print(f"  why:      {a.support.reason}")
    flagged = sum(a.support.verdict == "unsupported" for a in audits)
    _warn(f"{len(audits)} citation(s), {flagged} unsupported")
    return 0


def cmd_parse(args: argparse.Namespace) -> int:
    text = _read_text(args.file, "input")
    _emit([m.to_json() for m in parse(text, args.pattern)])
    return 0


def cmd_deck(args: argparse.Namespace) -> int:
    from ..material.deck import load_deck
    from ..material.ocr import terminal_progress

    path = Path(args.file)
    # on a terminal, stderr shows "Reading printed numbers of x.pdf: page 5 of 20" while page images are read
    deck = load_deck(path, progress=terminal_progress(f"Reading printed numbers of {path.name}"))
    from ..material.uploads import deck_language

    language = deck_language(deck)  # of the deck's text; None when it cannot be told
    if args.json:
        _emit({"pages": [{"page_number": p.page_number, "display_page_number": p.display_page_number,
                          "display_source": p.display_source, "text": p.text} for p in deck.pages],
               "language": language, "warnings": list(deck.warnings)})
        return 0
    _print(f"{path.name}: {len(deck.pages)} pages, language {language or 'not told (too little text)'}")
    _print(f"{'page':>4}  {'printed':>7}  {'source':<11}  title")
    for p in deck.pages:
        _print(f"{p.page_number:>4}  {p.display_page_number or '-':>7}  {p.display_source:<11}  {p.title[:60]}")
    for w in deck.warnings:
        _warn(f"warning: {w}")
    return 0


def cmd_transcript(args: argparse.Namespace) -> int:
    from ..material.transcript import load_transcript
    from ..material.uploads import transcript_language

    tr = load_transcript(Path(args.file))
    language = transcript_language(tr)  # of the cues' text; None when it cannot be told
    if args.json:
        _emit({"segments": [{"start": c.start, "end": c.end, "text": c.text} for c in tr.cues],
               "language": language, "warnings": list(tr.warnings)})
        return 0
    _print(f"{Path(args.file).name}: {len(tr.cues)} cues, language {language or 'not told (too little text)'}")
    for c in tr.cues:
        _print(f"{c.start:9.3f} → {c.end:9.3f}  {c.text}")
    for w in tr.warnings:
        _warn(f"warning: {w}")
    return 0


def _rel(path: Path | None, root: Path) -> str | None:
    if path is None:
        return None
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:  # not under the course folder
        return str(path)


def cmd_course(args: argparse.Namespace) -> int:
    from ..material.library import load_material

    root = Path(args.dir)
    material = load_material(root)
    course = material.course
    units: list[dict[str, Any]] = []
    for um in material.units.values():
        u = um.unit
        units.append({"id": u.id, "name": u.name, "lecture": u.lecture_name, "deck": _rel(u.deck, root),
                      "pages": len(um.deck.pages) if um.deck else 0, "video": _rel(u.video, root),
                      "transcript": _rel(u.transcript, root),
                      "versions": {"attachment": u.versions.attachment, "video": u.versions.video}})
    if args.json:
        _emit({"course": {"id": course.id, "name": course.name, "language": course.language}, "units": units,
               "left_out": {str(uid): why for uid, why in material.broken.items()},
               "faqs": len(course.faqs), "warnings": list(material.warnings)})
        return 0
    _print(f"{course.name} (id {course.id}, {course.language}), {len(course.faqs)} FAQs")
    for row in units:
        _print(f"  unit {row['id']}: {row['name']} [{row['lecture']}] deck={row['deck']} pages={row['pages']} "
              f"video={row['video']} transcript={row['transcript']}")
    for uid, why in material.broken.items():
        _print(f"  unit {uid}: left out: {why}")
    return 0


def _load_meaning_while_the_model_writes() -> None:
    """Start loading the meaning model (the writer's lookups and the citations need it; about 1 s of CPU) in
    the background, to load while a model writes its first reply instead of after it. The model's SDK is
    imported first, and the GIL changes hands every 0.5 ms while the encoder loads, so that the request
    leaves as soon as it would without the load."""
    from ..llm import openai_chat  # noqa: F401  (the request needs it at once)
    from ..text.encoder import preload

    preload(switch_interval=0.0005)


def cmd_ask(args: argparse.Namespace) -> int:
    from ..chat.chat_pipeline import ChatPipeline
    from ..chat.view import ViewPosition
    from ..material.library import load_material

    material = load_material(Path(args.course))
    for uid, why in material.broken.items():  # said once; the other units answer
        _warn(f"citation-studio: unit {uid} is left out of the course: {why}")
    pasted = _read_text(args.answer_file, "answer") if args.answer_file else None
    config = _config(args)
    chat = ChatPipeline(config, material)
    if pasted is None and config.resolve(CHAT_PIPELINE, args.variant, "chat").type == "openai_chat":
        _load_meaning_while_the_model_writes()
    # the draft streams to a terminal (or with --stream): its words as the writer writes them, then the
    # cited answer after a blank line; redirected, only the cited answer is printed
    stream = not args.json and pasted is None and (sys.stdout.isatty() if args.stream is None else args.stream)
    drafted: list[str] = []
    readable = None
    if pasted is None and chat.cites_inline(args.variant):
        from ..pipeline.registry import UncitedStream

        readable = UncitedStream()  # the text as a reader sees it: handles left out, a half-typed one held back

    def piece(text: str) -> None:
        if readable is not None:
            text = readable.feed(text)
        drafted.append(text)
        _write(text)
        sys.stdout.flush()

    result = chat(args.question, ViewPosition(args.unit, page=args.page, second=args.time),
                  language=args.lang, variant=args.variant, pasted_answer=pasted, on_delta=piece if stream else None)
    if readable is not None and stream:
        _write(readable.end())  # a "[" at the very end that was text after all
    if args.json:
        _emit(result.to_json())
    else:
        _write(("\n\n" if drafted else "") + result.answer + "\n")
    if result.languages_differ is not None:  # said every time, as the offline answer says it
        asked, written = result.languages_differ
        _warn(f"citation-studio: the question is in {asked}, the unit's material in {written}: passages are "
              f"quoted in {written}")
    for failure in result.failures if not args.json else ():
        if failure.kind == "writer":  # the answer is cut short: said on stderr, the answer kept on stdout
            _warn(f"citation-studio: {failure.message}")
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    from ..limits import too_long
    from ..lms.render import render_markdown

    text = _read_text(args.file, "input")
    why = too_long(text)
    if why is not None:
        raise InputError(f"{args.file}: {why}")
    _write(render_markdown(text) + "\n")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from ..testing.rounds import main as rounds

    argv = ["--delay", str(args.delay)] if args.delay is not None else []
    argv += ["--delays", args.delays] if args.delays is not None else []
    argv += ["--n", args.n] if args.n else []
    argv += ["--turn-delays", args.turn_delays] if args.turn_delays is not None else []
    argv += ["--one-at-a-time"] if args.one_at_a_time else []
    return int(rounds(argv))


def _shown(value: str) -> str:
    return value if len(value) <= 24 else value[:20] + "…"


def _whole(value: str) -> int | None:
    """``value`` as a whole number of at most 18 digits, or None."""
    digits = value.strip().lstrip("+-")
    if not digits.isascii() or not digits.isdigit() or len(digits) > 18:
        return None
    return int(value)


def _unit_id(value: str) -> int:
    number = _whole(value)
    if number is None or number < 0:
        raise argparse.ArgumentTypeError(f"expected a unit id (a whole number >= 0), got {_shown(value)!r}")
    return number


def _page(value: str) -> int:
    number = _whole(value)
    if number is None or number < 1:
        raise argparse.ArgumentTypeError(f"expected a page number >= 1, got {_shown(value)!r}")
    return number


def _second(value: str) -> float:
    try:
        second = float(value)
    except ValueError:
        second = math.nan
    if not math.isfinite(second) or second < 0:
        raise argparse.ArgumentTypeError(f"expected a second >= 0, got {_shown(value)!r}")
    return second


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="citation-studio", description="The Iris citation pipeline and an Artemis-like chip renderer.")
    p.add_argument("--config-dir", help="folder with llm_config.yml and application.yml (default: built-in)")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    c = sub.add_parser("cite", help="add citations to an answer from a sources file (FAQ and lecture "
                                    "passes, as citation.pass_order sets)")
    c.add_argument("--sources", required=True, help="SOURCES.json")
    c.add_argument("--answer", required=True, help="ANSWER.md (or - for stdin)")
    c.add_argument("--lang", default=None, help="user language code, e.g. de")
    c.add_argument("--variant", choices=VARIANTS, default="default")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_cite)

    au = sub.add_parser("audit", help="check each final-form marker of an answer against its source's words")
    au.add_argument("--sources", required=True, help="SOURCES.json")
    au.add_argument("--answer", required=True, help="an answer with final-form markers (or - for stdin)")
    au.add_argument("--lang", default=None, help="language of the answer (for stemming), e.g. de")
    au.add_argument("--json", action="store_true")
    au.set_defaults(func=cmd_audit)

    pa = sub.add_parser("parse", help="list the markers a parser finds, as JSON")
    pa.add_argument("--pattern", choices=PATTERN_NAMES, default="client")
    pa.add_argument("file", nargs="?", default="-", help="FILE or - for stdin")
    pa.set_defaults(func=cmd_parse)

    d = sub.add_parser("deck", help="pages of a PDF deck with deck index and printed number")
    d.add_argument("file")
    d.add_argument("--json", action="store_true")
    d.set_defaults(func=cmd_deck)

    t = sub.add_parser("transcript", help="segments of a WebVTT or SubRip transcript")
    t.add_argument("file")
    t.add_argument("--json", action="store_true")
    t.set_defaults(func=cmd_transcript)

    co = sub.add_parser("course", help="a course folder (course.yml) and its units")
    co.add_argument("dir")
    co.add_argument("--json", action="store_true")
    co.set_defaults(func=cmd_course)

    a = sub.add_parser("ask", help="ask a question at a slide or second: write the answer and cite it")
    a.add_argument("--course", required=True)
    a.add_argument("--unit", required=True, type=_unit_id)
    where = a.add_mutually_exclusive_group(required=True)
    where.add_argument("--page", type=_page, help="open deck page (1-based PDF position)")
    where.add_argument("--time", type=_second, help="open video second (>= 0)")
    a.add_argument("--question", required=True)
    a.add_argument("--lang", default=None)
    a.add_argument("--variant", choices=VARIANTS, default="default")
    a.add_argument("--answer-file", help="use this answer instead of the writer (QA mode)")
    a.add_argument("--json", action="store_true")
    a.add_argument("--stream", action=argparse.BooleanOptionalAction, default=None,
                   help="print the answer's words as they are written, then the cited answer (default: on a "
                        "terminal)")
    a.set_defaults(func=cmd_ask)

    r = sub.add_parser("render", help="render Markdown with markers to HTML (markers become chip candidates)")
    r.add_argument("file", nargs="?", default="-")
    r.set_defaults(func=cmd_render)

    b = sub.add_parser("bench", help="LLM rounds per citation pass against a local chat-completions server")
    b.add_argument("--delays", default=None, help="seconds the local server waits before every reply (0.2,1.0)")
    b.add_argument("--delay", type=float, default=None, help="one delay only")
    b.add_argument("--n", default=None, help="used citations, e.g. 1,5,10,20")
    b.add_argument("--turn-delays", default=None, help="delays of the whole-turn comparison, e.g. 0.2,1.0")
    b.add_argument("--one-at-a-time", action="store_true", help="no cases side by side (slower)")
    b.set_defaults(func=cmd_bench)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except CitationStudioError as exc:
        _warn(f"citation-studio: {exc}")
        return EXIT_BAD_INPUT if isinstance(exc, InputError) else EXIT_FAILED
    except BrokenPipeError:
        return 0
    except Exception as exc:  # noqa: BLE001  (the one boundary: one line, never a traceback)
        detail = " ".join(str(exc).split())[:200]
        _warn(f"citation-studio: internal error: {type(exc).__name__}{': ' + detail if detail else ''}")
        return EXIT_FAILED


if __name__ == "__main__":
    raise SystemExit(main())
