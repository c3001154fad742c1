"""llm_config.yml and application.yml: resolution by role and variant, one-line start-up errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from citation_core.errors import ConfigError
from citation_core.llm.config import load_config

ROOT = Path(__file__).resolve().parents[1]

MODELS = """
models:
  - {id: quiet, type: offline, model: offline-extractive-1}
  - {id: big, type: openai_chat, model: gpt-x, base_url: "http://127.0.0.1:1/v1", api_key_env: KEY,
     cost_per_million: {input: 2, output: 8}}
"""
APP = """
llm_configuration:
  citation_pipeline:
    default: {chat: quiet, keyword_summary: quiet}
    advanced: {chat: big, keyword_summary: big}
  chat_pipeline:
    default: {chat: quiet}
    advanced: {chat: big}
citation: {keyword_strategy: batched}
"""


def write(tmp_path: Path, models: str = MODELS, app: str = APP) -> Path:
    (tmp_path / "llm_config.yml").write_text(models, encoding="utf-8")
    (tmp_path / "application.yml").write_text(app, encoding="utf-8")
    return tmp_path


def test_the_embedded_defaults_use_the_offline_model_everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CITATION_STUDIO_LLM", raising=False)
    cfg = load_config(ROOT)
    for pipeline, role in (("citation_pipeline", "chat"), ("citation_pipeline", "keyword_summary"),
                           ("chat_pipeline", "chat")):
        for variant in ("default", "advanced"):
            assert cfg.resolve(pipeline, variant, role).type == "offline"
    assert (cfg.keyword_strategy, cfg.pass_order, cfg.deadline_seconds) == ("batched", "parallel", 60.0)


def test_keyword_summary_always_resolves_through_default(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path), override="")
    assert cfg.resolve("citation_pipeline", "advanced", "chat").id == "big"
    assert cfg.resolve("citation_pipeline", "advanced", "keyword_summary").id == "quiet"
    assert cfg.keyword_strategy == "batched"
    big = cfg.models["big"]
    assert (big.cost_input_per_million, big.cost_output_per_million, big.api_key_env) == (2.0, 8.0, "KEY")


def test_one_setting_switches_every_role_to_another_model(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path), override="big")
    assert cfg.resolve("chat_pipeline", "default", "chat").id == "big"
    assert cfg.resolve("citation_pipeline", "default", "keyword_summary").id == "big"
    with pytest.raises(ConfigError, match="CITATION_STUDIO_LLM=nope: no model with that id in llm_config.yml"):
        load_config(write(tmp_path), override="nope")


@pytest.mark.parametrize(
    ("models", "app", "message"),
    [
        (MODELS, APP.replace("    default: {chat: quiet, keyword_summary: quiet}\n", "    default: {chat: quiet}\n"),
         "application.yml: llm_configuration.citation_pipeline.default.keyword_summary: missing "
         "(pipeline citation_pipeline, variant default, role keyword_summary)"),
        (MODELS, APP.replace("advanced: {chat: big}", "advanced: {chat: huge}"),
         "application.yml: llm_configuration.chat_pipeline.advanced.chat: model id 'huge' is not declared"),
        (MODELS.replace("type: offline", "type: magic"), APP, "llm_config.yml: models[0].type: 'magic' is not one"),
        (MODELS.replace("model: gpt-x, ", ""), APP, "llm_config.yml: models[1].model: missing"),
        (MODELS, APP + "\n  bad: [", "application.yml: invalid YAML at line"),
        (MODELS, APP.replace("batched", "random"), "application.yml: citation.keyword_strategy: 'random'"),
        ("models: []", APP, "llm_config.yml: models: expected a non-empty list"),
    ],
)
def test_malformed_configuration_fails_at_start_up_with_one_line(
    tmp_path: Path, models: str, app: str, message: str
) -> None:
    with pytest.raises(ConfigError) as err:
        load_config(write(tmp_path, models, app), override="")
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_missing_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "llm_config.yml").write_text(MODELS)
    with pytest.raises(ConfigError, match="application.yml: file not found"):
        load_config(tmp_path, override="")


# --- placement mode ---------------------------------------------------------------------------------------

def test_placement_mode_is_iris_unless_set_globally_or_per_citation_variant(tmp_path: Path) -> None:
    from citation_core.pipeline import CitationPipeline

    cfg = load_config(write(tmp_path), override="")
    assert (cfg.placement_mode_for("default"), cfg.placement_mode_for("advanced")) == ("iris", "iris")
    app = APP.replace("    advanced: {chat: big, keyword_summary: big}\n",
                      "    advanced: {chat: big, keyword_summary: big, placement_mode: iris}\n")
    app = app.replace("{keyword_strategy: batched}", "{keyword_strategy: batched, placement_mode: places}")
    cfg = load_config(write(tmp_path, app=app), override="big")
    assert (cfg.placement_mode_for("default"), cfg.placement_mode_for("advanced")) == ("places", "iris")
    assert cfg.resolve("citation_pipeline", "advanced", "chat").id == "big"  # the override names models only
    assert "placement_mode" not in cfg.llm_configuration["citation_pipeline"]["advanced"]
    assert CitationPipeline.from_config(cfg, "default").placement_mode == "places"
    assert CitationPipeline.from_config(cfg, "advanced").placement_mode == "iris"


@pytest.mark.parametrize(("app", "message"), [
    (APP.replace("{keyword_strategy: batched}", "{placement_mode: sentences}"),
     "application.yml: citation.placement_mode: 'sentences' is not one of iris, places"),
    (APP.replace("advanced: {chat: big, keyword_summary: big}", "advanced: {chat: big, placement_mode: [places]}"),
     "application.yml: llm_configuration.citation_pipeline.advanced.placement_mode: ['places'] is not one of iris, "
     "places"),
    (APP.replace("advanced: {chat: big}", "advanced: {chat: big, placement_mode: places}"),
     "application.yml: llm_configuration.chat_pipeline.advanced.placement_mode: only a citation_pipeline variant "
     "has a placement mode"),
])
def test_a_wrong_placement_mode_stops_start_up_with_one_line_naming_file_and_field(
        tmp_path: Path, app: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_config(write(tmp_path, app=app), override="")
    assert str(err.value) == message
