"""``llm_config.yml`` (models) and ``application.yml`` (which model serves which role)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Literal

from .. import config_fields as fields
from ..errors import ConfigError
from ..yaml_file import read_yaml

ModelType = Literal["openai_chat", "offline"]
Variant = Literal["default", "advanced"]
VARIANTS: tuple[Variant, ...] = ("default", "advanced")
KeywordStrategy = Literal["sequential", "batched"]
PassOrder = Literal["parallel", "faq_then_lecture"]
PlacementMode = Literal["iris", "places"]
PLACEMENT_MODES: tuple[PlacementMode, ...] = ("iris", "places")
PLACEMENT_MODE = "placement_mode"  # the key of the setting, under citation and per citation_pipeline variant
CitationMode = Literal["placement", "inline"]
CITATION_MODES: tuple[CitationMode, ...] = ("placement", "inline")
CITATION_MODE = "citation_mode"  # per chat_pipeline variant; ``citation.mode`` for all

CITATION_PIPELINE = "citation_pipeline"
CHAT_PIPELINE = "chat_pipeline"
# Roles each pipeline needs, per variant. keyword_summary is resolved through "default" only.
REQUIRED_ROLES: dict[str, dict[Variant, tuple[str, ...]]] = {
    CITATION_PIPELINE: {"default": ("chat", "keyword_summary"), "advanced": ("chat",)},
    CHAT_PIPELINE: {"default": ("chat",), "advanced": ("chat",)},
}


@dataclass(frozen=True)
class ModelConfig:
    id: str
    type: ModelType
    model: str
    base_url: str | None = None
    api_key_env: str | None = None
    temperature: float | None = None
    cost_input_per_million: float = 0.0
    cost_output_per_million: float = 0.0
    timeout: float = 60.0
    max_retries: int = 2


OFFLINE_MODEL = ModelConfig("offline", "offline", "offline-extractive-1")


@dataclass(frozen=True)
class LlmConfig:
    """Which models exist (``llm_config.yml``) and which one serves each role (``application.yml``)."""

    models: dict[str, ModelConfig]
    # pipeline -> variant -> role -> model id
    llm_configuration: dict[str, dict[str, dict[str, str]]]
    keyword_strategy: KeywordStrategy = "batched"
    pass_order: PassOrder = "parallel"
    deadline_seconds: float | None = 60.0  # the whole citation stage of one answer
    prompts: Traversable | None = None  # a folder of prompt templates; None: the packaged defaults
    placement_mode: PlacementMode = "iris"  # citation.placement_mode
    placement_modes: dict[str, PlacementMode] = field(default_factory=dict)  # per citation_pipeline variant
    citation_mode: CitationMode = "placement"  # citation.mode
    citation_modes: dict[str, CitationMode] = field(default_factory=dict)  # per chat_pipeline variant

    def citation_mode_for(self, variant: str) -> CitationMode:
        """How a chat turn of ``variant`` is cited: ``placement`` (a citation stage after the writer) or
        ``inline`` (the writer puts handles behind its sentences while it streams)."""
        return self.citation_modes.get(variant, self.citation_mode)

    def placement_mode_for(self, variant: str) -> PlacementMode:
        """How the citation pipeline of ``variant`` places citations: its own setting, else the global one."""
        return self.placement_modes.get(variant, self.placement_mode)

    def resolve(self, pipeline: str, variant: str, role: str) -> ModelConfig:
        """The model for ``role`` of ``pipeline`` under ``variant`` (keyword_summary: always default)."""
        if role == "keyword_summary":
            variant = "default"
        where = f"application.yml: llm_configuration.{pipeline}.{variant}.{role}"
        try:
            model_id = self.llm_configuration[pipeline][variant][role]
        except KeyError:
            raise ConfigError(f"{where}: missing (pipeline {pipeline}, variant {variant}, role {role})") from None
        if model_id not in self.models:
            raise ConfigError(f"{where}: model id {model_id!r} is not declared in llm_config.yml")
        return self.models[model_id]

    def optional(self, pipeline: str, variant: str, role: str) -> ModelConfig | None:
        """The model for an optional role (e.g. the citation ``judge``), or None when none is configured."""
        if role not in self.llm_configuration.get(pipeline, {}).get(variant, {}):
            return None
        return self.resolve(pipeline, variant, role)


def _placement_mode(value: object, where: str) -> PlacementMode:
    for mode in PLACEMENT_MODES:
        if value == mode:
            return mode
    raise ConfigError(f"{where}: {value!r} is not one of {', '.join(PLACEMENT_MODES)}")


def _citation_mode(value: object, where: str) -> CitationMode:
    for mode in CITATION_MODES:
        if value == mode:
            return mode
    raise ConfigError(f"{where}: {value!r} is not one of {', '.join(CITATION_MODES)}")


def _load_yaml(path: Traversable) -> Any:
    return read_yaml(path, ConfigError)


def _model(path: Traversable, i: int, raw: Any) -> ModelConfig:
    where = f"{path.name}: models[{i}]"
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: expected a mapping")
    for key in ("id", "type", "model"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise ConfigError(f"{where}.{key}: missing or not a string")
    if raw["type"] not in ("openai_chat", "offline"):
        raise ConfigError(f"{where}.type: {raw['type']!r} is not one of openai_chat, offline")
    cost = raw.get("cost_per_million", {}) or {}
    if not isinstance(cost, dict):
        raise ConfigError(f"{where}.cost_per_million: expected a mapping with input and output")
    temperature = raw.get("temperature")
    return ModelConfig(
        id=raw["id"],
        type=raw["type"],
        model=raw["model"],
        base_url=fields.optional_text(raw.get("base_url"), f"{where}.base_url", "a URL (a string)"),
        api_key_env=fields.optional_text(raw.get("api_key_env"), f"{where}.api_key_env",
                                         "the name of an environment variable"),
        temperature=None if temperature is None else fields.number(temperature, f"{where}.temperature"),
        cost_input_per_million=fields.number(cost.get("input", 0.0), f"{where}.cost_per_million.input",
                                             "a number ≥ 0", least=0),
        cost_output_per_million=fields.number(cost.get("output", 0.0), f"{where}.cost_per_million.output",
                                              "a number ≥ 0", least=0),
        timeout=fields.number(raw.get("timeout", 60.0), f"{where}.timeout", "seconds > 0", above=0),
        max_retries=fields.whole(raw.get("max_retries", 2), f"{where}.max_retries", "a whole number ≥ 0", least=0),
    )


OVERRIDE_ENV = "CITATION_STUDIO_LLM"
CONFIG_DIR_ENV = "CITATION_STUDIO_CONFIG_DIR"


def defaults_dir() -> Traversable:
    """The editable defaults the package carries: llm_config.yml, application.yml and prompts/."""
    return resources.files(__package__.rsplit(".", 1)[0]).joinpath("defaults")


def config_dir() -> Traversable:
    """``$CITATION_STUDIO_CONFIG_DIR`` when set, else the packaged defaults."""
    configured = os.environ.get(CONFIG_DIR_ENV)
    return Path(configured) if configured else defaults_dir()


def load_config(directory: Traversable, override: str | None = None) -> LlmConfig:
    """Load and validate ``llm_config.yml`` and ``application.yml`` of ``directory``; any missing or
    malformed entry fails here, at start-up.

    ``override`` (default: the ``CITATION_STUDIO_LLM`` environment variable) names one model id of
    llm_config.yml that then serves every role of every pipeline and variant. Prompt templates come
    from ``directory/prompts`` when it exists, else from the packaged defaults.
    """
    llm_path = directory.joinpath("llm_config.yml")
    app_path = directory.joinpath("application.yml")
    raw_models = _load_yaml(llm_path)
    if isinstance(raw_models, dict):
        raw_models = raw_models.get("models")
    if not isinstance(raw_models, list) or not raw_models:
        raise ConfigError(f"{llm_path.name}: models: expected a non-empty list")
    models: dict[str, ModelConfig] = {}
    for i, raw in enumerate(raw_models):
        m = _model(llm_path, i, raw)
        if m.id in models:
            raise ConfigError(f"{llm_path.name}: models[{i}].id: duplicate id {m.id!r}")
        models[m.id] = m

    app = _load_yaml(app_path)
    if not isinstance(app, dict) or not isinstance(app.get("llm_configuration"), dict):
        raise ConfigError(f"{app_path.name}: llm_configuration: missing or not a mapping")
    llm_cfg: dict[str, dict[str, dict[str, str]]] = {}
    modes: dict[str, PlacementMode] = {}
    citation_modes: dict[str, CitationMode] = {}
    for pipeline, variants in app["llm_configuration"].items():
        if not isinstance(variants, dict):
            raise ConfigError(f"{app_path.name}: llm_configuration.{pipeline}: expected variants")
        llm_cfg[str(pipeline)] = {}
        for variant, roles in variants.items():
            if isinstance(roles, dict) and PLACEMENT_MODE in roles:  # a setting of the variant, not a role
                where = f"{app_path.name}: llm_configuration.{pipeline}.{variant}.{PLACEMENT_MODE}"
                if pipeline != CITATION_PIPELINE:
                    raise ConfigError(f"{where}: only a citation_pipeline variant has a placement mode")
                roles = dict(roles)
                modes[str(variant)] = _placement_mode(roles.pop(PLACEMENT_MODE), where)
            if isinstance(roles, dict) and CITATION_MODE in roles:  # a setting of the variant, not a role
                where = f"{app_path.name}: llm_configuration.{pipeline}.{variant}.{CITATION_MODE}"
                if pipeline != CHAT_PIPELINE:
                    raise ConfigError(f"{where}: only a chat_pipeline variant has a citation mode")
                roles = dict(roles)
                citation_modes[str(variant)] = _citation_mode(roles.pop(CITATION_MODE), where)
            if not isinstance(roles, dict) or not all(isinstance(v, str) for v in roles.values()):
                raise ConfigError(
                    f"{app_path.name}: llm_configuration.{pipeline}.{variant}: expected role: model-id pairs"
                )
            llm_cfg[str(pipeline)][str(variant)] = {str(k): v for k, v in roles.items()}

    override = os.environ.get(OVERRIDE_ENV) if override is None else override
    if override:
        if override not in models:
            raise ConfigError(f"{OVERRIDE_ENV}={override}: no model with that id in {llm_path.name}")
        llm_cfg = {p: {v: dict.fromkeys(roles, override) for v, roles in vs.items()} for p, vs in llm_cfg.items()}

    citation = fields.settings(app.get("citation"), f"{app_path.name}: citation")
    strategy = citation.get("keyword_strategy", "batched")
    if strategy not in ("sequential", "batched"):
        raise ConfigError(
            f"{app_path.name}: citation.keyword_strategy: {strategy!r} is not one of sequential, batched"
        )
    order = citation.get("pass_order", "parallel")
    if order not in ("parallel", "faq_then_lecture"):
        raise ConfigError(f"{app_path.name}: citation.pass_order: {order!r} is not one of parallel, faq_then_lecture")
    deadline = citation.get("deadline_seconds", 60)
    if deadline is not None and (isinstance(deadline, bool) or not isinstance(deadline, int | float)
                                 or not 0 < deadline < 86_400):
        raise ConfigError(f"{app_path.name}: citation.deadline_seconds: expected seconds > 0 (or null), got "
                          f"{deadline!r}")
    mode = _placement_mode(citation.get(PLACEMENT_MODE, "iris"), f"{app_path.name}: citation.{PLACEMENT_MODE}")
    how = _citation_mode(citation.get("mode", "placement"), f"{app_path.name}: citation.mode")
    prompts = directory.joinpath("prompts")
    cfg = LlmConfig(models=models, llm_configuration=llm_cfg, keyword_strategy=strategy, pass_order=order,
                    deadline_seconds=None if deadline is None else float(deadline),
                    prompts=prompts if prompts.is_dir() else None, placement_mode=mode, placement_modes=modes,
                    citation_mode=how, citation_modes=citation_modes)
    for pipeline, per_variant in REQUIRED_ROLES.items():
        for variant, roles in per_variant.items():
            for role in roles:
                try:
                    cfg.resolve(pipeline, variant, role)
                except ConfigError as exc:
                    raise ConfigError(str(exc).replace("application.yml", app_path.name)) from None
    return cfg


def default_config() -> LlmConfig:
    """The configuration in ``$CITATION_STUDIO_CONFIG_DIR``, else the packaged defaults."""
    return load_config(config_dir())
