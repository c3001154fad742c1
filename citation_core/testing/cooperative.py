"""A ``LocalChatServer`` handler that answers the citation tasks as a cooperative LLM would.

The task comes from the ``X-Citation-Task`` header that the OpenAI-compatible client sends; the prompt
is read only for the task's material, relying on the structure of the templates in ``prompts/``:

* placement: the JSON entries follow a line ``Paragraphs:`` (lecture) or ``FAQ entries:`` (FAQ), then
  a blank line, a line ``Answer:`` and the answer, which ends the prompt (plus the template's newline);
* placement_places: the same entries, then a blank line, a line ``Sentences:`` and the JSON array of the
  answer's numbered sentences;
* keyword and summary: the paragraph follows a line ``Paragraph:`` and ends the prompt;
* keywords_batched: the JSON array of paragraphs follows a line ``Paragraphs (JSON array):``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from .server import ChatRequest, Handler, Reply, content_text

__all__ = ["cooperative_handler", "keyword_of", "place", "place_numbers", "summary_of"]

_ENTRY_LABELS = ("\nParagraphs:\n", "\nFAQ entries:\n")
_ANSWER_LABEL = "\n\nAnswer:\n"
_SENTENCES_LABEL = "\n\nSentences:\n"
_PARAGRAPH_LABEL = "\nParagraph:\n"
_BATCH_LABEL = "\nParagraphs (JSON array):\n"

_MARKER = re.compile(r"\[cite:[^\[\]]*\]")
_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.S)
# Closing punctuation (and closing quotes or brackets), then markers already there, then a space or the end.
_SENTENCE_END = re.compile(r"[.!?]+[\"')\]]*\x00*(?=\s|\Z)")
_WORD = re.compile(r"\w{4,}")
_NOT_IN_CHIPS = re.compile(r"[:\[\]]")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def place(answer: str, entries: list[dict[str, Any]]) -> str:
    """``answer`` with, behind each sentence, the id of the entry sharing most words with it (at least two).

    Markers already in the answer stay where they are (a new id goes behind them) and nothing is put
    into code; everything else is left as it was.
    """
    docs = [(str(e["id"]), _words(str(e.get("content", "")))) for e in entries if isinstance(e, dict) and "id" in e]
    masked = _MARKER.sub(lambda m: "\x00" * len(m.group()), answer)  # same length: offsets carry over
    masked = _CODE.sub(lambda m: "\x01" * len(m.group()), masked)
    out: list[str] = []
    pos = 0
    for m in _SENTENCE_END.finditer(masked):
        sentence = _words(masked[pos : m.end()])
        out.append(answer[pos : m.end()])
        pos = m.end()
        if docs:
            best_id, best_words = max(docs, key=lambda doc: len(sentence & doc[1]))
            if len(sentence & best_words) >= 2:
                out.append(best_id)
    out.append(answer[pos:])
    return "".join(out)


def place_numbers(sentences: list[dict[str, Any]], entries: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """Per numbered sentence (``{"n", "text"}``), the id of the entry sharing most words with it (at least two),
    as the places mode's reply; code blocks get none, as :func:`place` puts nothing into code."""
    docs = [(e["id"], _words(str(e.get("content", "")))) for e in entries if isinstance(e, dict) and "id" in e]
    out: dict[str, list[Any]] = {}
    for sentence in sentences:
        text = str(sentence.get("text", "")) if isinstance(sentence, dict) else ""
        if not docs or not text or text.lstrip().startswith("```"):
            continue
        words = _words(_CODE.sub(" ", text))
        best_id, best_words = max(docs, key=lambda doc: len(words & doc[1]))
        if len(words & best_words) >= 2:
            out[str(sentence.get("n"))] = [best_id]
    return out


def keyword_of(paragraph: str) -> str:
    """A title line of up to three words, else the first two words; without ``:``, ``[`` or ``]``."""
    lines = [line for line in paragraph.strip().splitlines() if line.strip()]
    first = _NOT_IN_CHIPS.sub(" ", lines[0] if lines else "").split()
    keyword = " ".join(first if len(first) <= 3 else first[:2]).strip(".,;!?\"'()")
    return keyword or "Source"


def summary_of(paragraph: str) -> str:
    """The paragraph's first sentence (after its title line, if it has one); without ``:``, ``[`` or ``]``."""
    lines = [line.strip() for line in paragraph.strip().splitlines() if line.strip()]
    if len(lines) > 1 and not lines[0].endswith((".", "!", "?")):
        lines = lines[1:]  # a title
    flat = " ".join(_NOT_IN_CHIPS.sub(" ", " ".join(lines)).split())
    end = re.search(r"[.!?](?=\s|\Z)", flat)
    return (flat[: end.end()] if end else flat) or "A source."


def _after(prompt: str, label: str) -> str:
    at = prompt.find(label)
    if at < 0:
        raise ValueError(f"the prompt has no {label.strip()!r} line")
    return prompt[at + len(label) :]


def _json_at(text: str, what: str) -> tuple[Any, str]:
    """The JSON value at the start of ``text`` and the text after it."""
    stripped = text.lstrip()
    try:
        value, end = json.JSONDecoder().raw_decode(stripped)
    except ValueError as exc:
        raise ValueError(f"the {what} are not valid JSON: {exc}") from None
    return value, stripped[end:]


def _placement(prompt: str) -> str:
    found = [(prompt.find(label), label) for label in _ENTRY_LABELS if label in prompt]
    if not found:
        raise ValueError("the placement prompt has no 'Paragraphs:' or 'FAQ entries:' line")
    _, label = min(found)  # the template's own label comes before any text quoted from the answer
    entries, rest = _json_at(_after(prompt, label), "placement entries")
    if not isinstance(entries, list):
        raise ValueError("the placement entries are not a JSON array")
    if not rest.startswith(_ANSWER_LABEL):
        raise ValueError("the placement prompt has no 'Answer:' line after the entries")
    answer = rest[len(_ANSWER_LABEL) :]
    return place(answer[:-1] if answer.endswith("\n") else answer, entries)  # the template's final newline


def _placement_places(prompt: str) -> str:
    found = [(prompt.find(label), label) for label in _ENTRY_LABELS if label in prompt]
    if not found:
        raise ValueError("the placement prompt has no 'Paragraphs:' or 'FAQ entries:' line")
    _, label = min(found)
    entries, rest = _json_at(_after(prompt, label), "placement entries")
    if not isinstance(entries, list):
        raise ValueError("the placement entries are not a JSON array")
    if not rest.startswith(_SENTENCES_LABEL):
        raise ValueError("the placement prompt has no 'Sentences:' line after the entries")
    sentences, _ = _json_at(rest[len(_SENTENCES_LABEL) :], "numbered sentences")
    if not isinstance(sentences, list):
        raise ValueError("the numbered sentences are not a JSON array")
    return json.dumps(place_numbers(sentences, entries))


def _keywords_batched(prompt: str) -> str:
    paragraphs, _ = _json_at(_after(prompt, _BATCH_LABEL), "batched paragraphs")
    if not isinstance(paragraphs, list):
        raise ValueError("the batched paragraphs are not a JSON array")
    return json.dumps([keyword_of(str(p)) for p in paragraphs], ensure_ascii=False)


_ANSWERS: dict[str, Callable[[str], str]] = {
    "placement": _placement,
    "placement_places": _placement_places,
    "keyword": lambda prompt: keyword_of(_after(prompt, _PARAGRAPH_LABEL)),
    "keywords_batched": _keywords_batched,
    "summary": lambda prompt: summary_of(_after(prompt, _PARAGRAPH_LABEL)),
}


def _prompt(request: ChatRequest) -> str:
    messages = request.get("messages")
    if not isinstance(messages, list):
        messages = []
    users = [m for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    if not users:
        raise ValueError("the request has no user message")
    return content_text(users[-1].get("content"))


def cooperative_handler(*, delay: float | Mapping[str, float] = 0.0) -> Handler:
    """A handler answering placement (both modes), keyword, keywords_batched and summary requests.

    It dispatches on the ``X-Citation-Task`` header, never on the prompt's wording:

    * placement: the answer with, behind each sentence, the id of the entry sharing most words with it
      (at least two; see :func:`place`);
    * placement_places: the same choice per numbered sentence, as a JSON object (:func:`place_numbers`);
    * keyword: a short keyword from the paragraph (:func:`keyword_of`);
    * keywords_batched: a JSON array with one such keyword per paragraph (they may repeat);
    * summary: the paragraph's first sentence (:func:`summary_of`).

    ``delay`` is the seconds to wait before each reply, or a mapping task -> seconds (0 for tasks it
    does not name). A request without the header or with another task gets HTTP 400; a prompt that
    does not follow its template gets HTTP 500 with the reason in the error message.
    """
    delays: Mapping[str, float] = delay if isinstance(delay, Mapping) else {}
    fixed = 0.0 if isinstance(delay, Mapping) else float(delay)

    def handler(request: ChatRequest) -> Reply:
        task = request.task
        answer = _ANSWERS.get(task or "")
        if answer is None:
            problem = "no X-Citation-Task header" if task is None else f"cannot answer task {task!r}"
            return Reply(f"cooperative_handler: {problem}", status=400)
        return Reply(answer(_prompt(request)), delay=delays.get(task or "", fixed))

    return handler
