"""The deployment under attack: no secret in the image, bounded replicas, headers and limits at the proxy,
pinned images. The files of ``deploy/`` are read as Docker and nginx read them."""

from __future__ import annotations

import fnmatch
import re
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT

DEPLOY = ROOT / "deploy"


def dockerignored(path: str) -> bool:
    """Whether ``path`` (relative to the build context) is excluded by Dockerfile.dockerignore, with Docker's rules:
    patterns in order, the last that matches wins, ``!`` re-includes, ``**`` matches any number of folders, and a
    pattern that matches a folder excludes what is inside it."""
    excluded = False
    for raw in (DEPLOY / "Dockerfile.dockerignore").read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        pattern = line[1:] if negate else line
        regex = re.escape(pattern).replace(r"\*\*/", "(?:.*/)?").replace(r"\*\*", ".*").replace(r"\*", "[^/]*")
        regex = regex.replace(r"\?", "[^/]")
        parts = path.split("/")
        if any(re.fullmatch(regex, "/".join(parts[:i])) for i in range(1, len(parts) + 1)):
            excluded = not negate
    return excluded


def copied_sources() -> list[str]:
    sources: list[str] = []
    for line in (DEPLOY / "Dockerfile").read_text(encoding="utf-8").splitlines():
        if line.startswith(("COPY ", "ADD ")):
            args = [a for a in line.split()[1:] if not a.startswith("--")]
            sources.extend(args[:-1])
    return sources


@pytest.mark.parametrize("secret", [".env", "deploy/.env", ".streamlit/secrets.toml", "config/.env.production",
                                    "certs/server.key", "certs/server.pem", ".pgpass"])
def test_no_local_secret_can_enter_the_image(secret: str) -> None:
    assert dockerignored(secret), f"{secret} would be in the build context"
    for source in copied_sources():
        assert source not in (".", "./", "*"), "the Dockerfile copies the whole folder"
        assert not fnmatch.fnmatch(secret, source) and not secret.startswith(source.rstrip("/") + "/") \
            or dockerignored(secret), f"{secret} copied by COPY {source}"


def test_what_the_image_copies_is_what_the_app_needs_and_exists() -> None:
    for source in copied_sources():
        assert (ROOT / source).exists(), source
        assert not dockerignored(source), f"COPY {source}: excluded from the build context"
    assert {"citation_core", "studio", "pages", "app.py", "pyproject.toml"} <= set(copied_sources())


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((DEPLOY / "compose.yml").read_text(encoding="utf-8"))
    return data


def test_each_app_replica_is_bounded_in_cpu_memory_and_processes() -> None:
    limits = compose()["services"]["app"]["deploy"]["resources"]["limits"]
    assert float(limits["cpus"]) <= 4
    memory = re.fullmatch(r"(\d+)([mg])", str(limits["memory"]))
    assert memory and int(memory.group(1)) * (1024 if memory.group(2) == "g" else 1) <= 8 * 1024
    assert 0 < int(limits["pids"]) <= 4096


def test_every_image_is_pinned_to_a_version() -> None:
    for name, service in compose()["services"].items():
        image = service.get("image")
        if image is None or "build" in service:
            continue
        assert ":" in image and not image.endswith(":latest"), f"{name}: image {image} is not pinned"
        assert re.search(r":v?\d+\.\d+", image), f"{name}: {image} names no release"


def test_nginx_sends_security_headers_everywhere_and_limits_each_client() -> None:
    conf = (DEPLOY / "nginx.conf").read_text(encoding="utf-8")
    code = "\n".join(line.split("#", 1)[0] for line in conf.splitlines())
    headers = ["X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy", "Content-Security-Policy",
               "Permissions-Policy"]
    # nginx: an add_header in a location replaces every add_header of the server block, so each block that has
    # one must carry them all
    blocks = re.split(r"\blocation\b", code)
    for block in blocks:
        if "add_header" in block:
            for header in headers:
                assert re.search(rf'add_header\s+{header}\s+"[^"]+"\s+always;', block), header
    assert "frame-ancestors 'self'" in code
    assert re.search(r"limit_req_zone\s+\$binary_remote_addr\s+zone=\w+:\d+m\s+rate=\d+r/s;", code)
    assert re.search(r"\blimit_req\s+zone=\w+", code) and re.search(r"\blimit_conn\s+\w+\s+\d+;", code)
    assert re.search(r"server_tokens\s+off;", code)
