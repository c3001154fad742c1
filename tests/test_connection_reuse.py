"""Connections to a model's server: one client per model configuration (base URL, key, timeout, retries) in a
process, reused by every call and every citation pass, its connections kept alive, closed when the process
exits. Measured over HTTPS on a LocalChatServer on 127.0.0.1 with a certificate made here (nothing reaches
the internet): the server counts the connections and TLS handshakes it served."""

from __future__ import annotations

import datetime as dt
import ipaddress
import shutil
import ssl
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from citation_core.contract import parse, strip_markers
from citation_core.llm import openai_chat
from citation_core.llm.base import ChatMessage, LlmRequest
from citation_core.llm.config import LlmConfig, ModelConfig, load_config
from citation_core.llm.openai_chat import OpenAIChatModel
from citation_core.pipeline import CitationPipeline
from citation_core.pipeline.model_calls import ModelCall, ModelCalls, RoleModel
from citation_core.pipeline.trace import Trace
from citation_core.sources import Sources
from citation_core.testing import ChatRequest, LocalChatServer, Reply, echo_handler

from .fakes import ANSWER, EXAM, MERGE, MERGE_STEP, TREE
from .test_openai_path import FakeLlm

ROOT = Path(__file__).resolve().parents[1]


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key (PEM files): made with ``cryptography`` when it is installed,
    else with the ``openssl`` command."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID
    except ImportError:
        if shutil.which("openssl") is None:
            pytest.skip("neither the cryptography package nor the openssl command is available")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=127.0.0.1",
                        "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
        return cert, key
    private = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.UTC)
    certificate = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(private.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=2))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(private, hashes.SHA256())
    )
    cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key.write_bytes(private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    return cert, key


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return self_signed_certificate(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def tls(certificate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> ssl.SSLContext:
    """The server's TLS context; the model clients made in the test trust its certificate (only)."""
    cert, key = certificate
    client = ssl.create_default_context(cafile=str(cert))
    monkeypatch.setattr(openai_chat, "_ssl_context", lambda: client)
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(cert, key)
    return server


def model_config(base_url: str, model_id: str = "local", model: str = "small-model-1",
                 temperature: float | None = 0.2) -> ModelConfig:
    return ModelConfig(model_id, "openai_chat", model, base_url, None, temperature, timeout=5.0, max_retries=0)


def ask(task: str = "summary", text: str = "hi") -> LlmRequest:
    return LlmRequest(task, (ChatMessage("user", text),))  # type: ignore[arg-type]


def test_calls_and_passes_of_one_configuration_share_one_kept_alive_connection(tls: ssl.SSLContext) -> None:
    with LocalChatServer(echo_handler, tls=tls) as srv:
        assert srv.base_url.startswith("https://127.0.0.1:")
        cfg = model_config(srv.base_url)
        model = OpenAIChatModel(cfg)
        for i in range(3):  # calls one after the other (the writer's, say)
            assert model.complete(ask(text=f"call {i}")).content == f"call {i}"
        for i in range(2):  # two passes, each with its own ModelCalls
            with ModelCalls() as calls:
                resp = calls.call(Trace("lecture"), RoleModel.of(cfg), ModelCall("placement", f"pass {i}", {}))
            assert resp.content == f"pass {i}"
        # another model name and temperature on the same server, key, timeout and retries: the same client
        other = model_config(srv.base_url, "local-large", "large-model-2", None)
        assert OpenAIChatModel(other).complete(ask(text="large")).content == "large"
        assert [r.body["model"] for r in srv.requests][-1] == "large-model-2"
        assert len(srv.requests) == 6
        assert (srv.connections_opened, srv.tls_handshakes) == (1, 1)


def test_calls_from_many_threads_at_once_share_the_client(tls: ssl.SSLContext) -> None:
    with LocalChatServer(lambda r: Reply(echo_handler(r).content, delay=0.1), tls=tls) as srv:
        cfg = model_config(srv.base_url)
        results: dict[int, str] = {}

        def one(i: int) -> None:
            results[i] = OpenAIChatModel(cfg).complete(ask(text=f"thread {i}")).content

        threads = [threading.Thread(target=one, args=(i,)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert results == {i: f"thread {i}" for i in range(6)}
        at_once = srv.connections_opened
        assert at_once <= 6 and srv.tls_handshakes == at_once  # a request in flight needs a connection of its own
        for i in range(4):  # afterwards: the open connections serve every call
            assert OpenAIChatModel(cfg).complete(ask(text=f"later {i}")).content == f"later {i}"
        assert srv.connections_opened == at_once


def write_config(folder: Path, base_url: str) -> LlmConfig:
    (folder / "llm_config.yml").write_text(textwrap.dedent(f"""\
        models:
          - id: local-small
            type: openai_chat
            model: small-model-1
            base_url: {base_url}
            timeout: 5
            max_retries: 0
        """), encoding="utf-8")
    (folder / "application.yml").write_text(textwrap.dedent("""\
        llm_configuration:
          citation_pipeline:
            default: {chat: local-small, keyword_summary: local-small}
            advanced: {chat: local-small}
          chat_pipeline:
            default: {chat: local-small}
            advanced: {chat: local-small}
        citation:
          keyword_strategy: sequential
          pass_order: faq_then_lecture
        """), encoding="utf-8")
    return load_config(folder, override="")


def test_two_citation_passes_use_one_connection(tmp_path: Path, tls: ssl.SSLContext) -> None:
    def unchanged(body: ChatRequest) -> Reply:  # placement that cites nothing: one call per pass
        return Reply(body["messages"][0]["content"].rsplit("Answer:", 1)[-1].strip())

    with LocalChatServer(unchanged, tls=tls) as srv:
        pipe = CitationPipeline.from_config(write_config(tmp_path, srv.base_url))
        result = pipe(ANSWER, Sources((MERGE,), (EXAM,)))
        assert list(result.traces) == ["faq", "lecture"] and result.failures == ()
        assert [r.task for r in srv.requests] == ["placement", "placement"]
        assert (srv.connections_opened, srv.tls_handshakes) == (1, 1)


def test_a_second_cited_answer_opens_no_new_connection(tmp_path: Path, tls: ssl.SSLContext) -> None:
    with LocalChatServer(FakeLlm(), tls=tls) as srv:
        pipe = CitationPipeline.from_config(write_config(tmp_path, srv.base_url))
        first = pipe(ANSWER, Sources((MERGE, MERGE_STEP, TREE), (EXAM,)))
        assert [m.type for m in parse(first.answer, "client")] == ["L", "L", "L"] and first.failures == ()
        after_first = srv.connections_opened  # the fan-outs' requests at once need some
        calls_first = len(srv.requests)
        second = pipe(ANSWER, Sources((MERGE, MERGE_STEP, TREE), (EXAM,)))
        assert strip_markers(second.answer) == ANSWER and len(srv.requests) == 2 * calls_first
        # the pool keeps every connection the first answer opened (idle ones for a minute); a second answer
        # opens at most one more, when its fan-outs happen to overlap more than the first's did (each pass used
        # to open its own client: 5 new connections per answer)
        assert srv.connections_opened - after_first <= 1 and srv.tls_handshakes == srv.connections_opened


def test_the_clients_are_closed_when_the_process_exits() -> None:
    script = textwrap.dedent("""\
        import atexit, os
        from citation_core.llm import openai_chat
        from citation_core.llm.base import ChatMessage, LlmRequest
        from citation_core.llm.config import ModelConfig
        from citation_core.testing import LocalChatServer, echo_handler

        def report():  # registered first, so it runs last: after the model clients were closed
            clients = openai_chat._LOOPS[os.getpid()].clients.values()
            print("clients", len(clients), "closed", all(c.is_closed() for c in clients), flush=True)

        atexit.register(report)
        srv = LocalChatServer(echo_handler).start()
        cfg = ModelConfig("local", "openai_chat", "m", srv.base_url, None, None, timeout=5.0, max_retries=0)
        print(openai_chat.OpenAIChatModel(cfg).complete(LlmRequest("summary", (ChatMessage("user", "hi"),))).content)
        """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["hi", "clients 1 closed True"]
