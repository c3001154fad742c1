"""A model server that answers with an error status: the error says what the server said, on one line, with
no control characters and no credentials, whether the reply was asked to stream or not. Real HTTP to a
LocalChatServer on 127.0.0.1."""

from __future__ import annotations

import json

import pytest

from citation_core.errors import ModelCallError
from citation_core.llm.base import ChatMessage, LlmRequest
from citation_core.llm.config import ModelConfig
from citation_core.llm.openai_chat import OpenAIChatModel
from citation_core.testing import LocalChatServer, Reply

KEY = "sk-test-0123456789abcdef"


def failed_call(reply: Reply, monkeypatch: pytest.MonkeyPatch, *, streamed: bool,
                credentials: str = "") -> tuple[str, str]:
    """The error of one call answered by ``reply``, and the server's base URL as the message names it."""
    monkeypatch.setenv("CITATION_TEST_SERVER_KEY", KEY)
    with LocalChatServer(lambda request: reply) as srv:
        base_url = srv.base_url.replace("http://", f"http://{credentials}") if credentials else srv.base_url
        model = OpenAIChatModel(ModelConfig("local", "openai_chat", "m", base_url=base_url,
                                            api_key_env="CITATION_TEST_SERVER_KEY", timeout=10, max_retries=0))
        request = LlmRequest("writer", (ChatMessage("user", "How does merging work?"),),
                             on_delta=(lambda piece: None) if streamed else None)
        with pytest.raises(ModelCallError) as err:
            model.complete(request)
        return str(err.value), srv.base_url


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize(("reply", "said"), [
    (Reply("This model's maximum context length is 8192 tokens.", status=400),
     "“This model's maximum context length is 8192 tokens.”"),
    (Reply(status=404, raw_body=json.dumps({"error": "model 'llama9' not found, try pulling it first"}).encode()),
     "“model 'llama9' not found, try pulling it first”"),
    (Reply(status=422, raw_body=json.dumps({"object": "error", "message": "temperature must be ≤ 2"}).encode()),
     "“temperature must be ≤ 2”"),
    (Reply(status=503, raw_body=b"upstream model is loading, retry in 30 s\n"),
     "“upstream model is loading, retry in 30 s”"),
], ids=["openai", "ollama", "vllm", "plain text"])
def test_the_error_says_what_the_server_said(reply: Reply, said: str, streamed: bool,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    message, base_url = failed_call(reply, monkeypatch, streamed=streamed)
    assert message == f"model local: HTTP {reply.status} from {base_url}: the server said {said}"


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_the_servers_message_is_one_line_without_control_characters(streamed: bool,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    reply = Reply("bad \x1b[31mrequest\x1b[0m:\r\n\tline two\x00\x07 and \u202eevil\u202c", status=400)
    message, _ = failed_call(reply, monkeypatch, streamed=streamed)
    assert message.endswith("the server said “bad request: line two and evil”")
    assert message.isprintable()


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_credentials_in_the_servers_message_and_in_the_url_are_masked(streamed: bool,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    reply = Reply(f"Incorrect API key provided: {KEY}. Upstream http://admin:hunter2@10.0.0.9:8000/v1?api_key=abc9 "
                  f"refused Bearer {KEY}", status=401)
    message, base_url = failed_call(reply, monkeypatch, streamed=streamed, credentials="user:pw-secret@")
    for secret in (KEY, "hunter2", "abc9", "pw-secret"):
        assert secret not in message
    shown = base_url.replace("http://", "http://user:***@")
    assert message == (f"model local: HTTP 401 from {shown}: the server said “Incorrect API key provided: ***. "
                       "Upstream http://admin:***@10.0.0.9:8000/v1?api_key=*** refused Bearer ***”")


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_a_long_message_is_cut_and_an_html_page_or_the_status_name_is_not_repeated(
        streamed: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    long, base_url = failed_call(Reply("overloaded " * 500, status=500), monkeypatch, streamed=streamed)
    assert long.startswith(f"model local: HTTP 500 from {base_url}: the server said “overloaded overloaded")
    assert long.endswith("…”") and len(long) < 300
    page = b"<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"
    html, base_url = failed_call(Reply(status=502, raw_body=page), monkeypatch, streamed=streamed)
    assert html == f"model local: HTTP 502 from {base_url}"
    phrase, base_url = failed_call(Reply(status=503), monkeypatch, streamed=streamed)  # "Service Unavailable"
    assert phrase == f"model local: HTTP 503 from {base_url}"  # the status's own name says nothing more
