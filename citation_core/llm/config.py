"""``llm_config.yml`` (models) and ``application.yml`` (which model serves which role)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from ..errors import ConfigError

ModelType = Literal["openai_chat", "offline"]
Variant = Literal["default", "advanced"]
VARIANTS: tuple[Variant, ...] = ("default", "advanced")
KeywordStrategy = Literal["sequential", "batched"]

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


@dataclass(frozen=True)
class AppConfig:
    models: dict[str, ModelConfig]
    # pipeline -> variant -> role -> model id
    llm_configuration: dict[str, dict[str, dict[str, str]]]
    keyword_strategy: KeywordStrategy = "sequential"
    database: str = "data/citation_studio.sqlite3"
    course_dirs: tuple[str, ...] = ("sample_decks",)
    prompts_dir: str = "prompts"
    max_upload_mb: int = 50
    library_dir: str = "data/library"  # the user's uploads, a course folder of its own
    base_dir: Path = field(default=Path("."))

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

    def dependency_variant(self, variant: str) -> str:
        """The chat pipeline declares its citation dependency with variant "same"."""
        return variant

    def path(self, relative: str) -> Path:
        p = Path(relative)
        return p if p.is_absolute() else self.base_dir / p


def _load_yaml(path: Path) -> Any:
    if not path.is_file():
        raise ConfigError(f"{path}: file not found")
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{path}:{line} not valid YAML") from None


def _model(path: Path, i: int, raw: Any) -> ModelConfig:
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
    try:
        return ModelConfig(
            id=raw["id"],
            type=raw["type"],
            model=raw["model"],
            base_url=raw.get("base_url"),
            api_key_env=raw.get("api_key_env"),
            temperature=None if raw.get("temperature") is None else float(raw["temperature"]),
            cost_input_per_million=float(cost.get("input", 0.0)),
            cost_output_per_million=float(cost.get("output", 0.0)),
            timeout=float(raw.get("timeout", 60.0)),
            max_retries=int(raw.get("max_retries", 2)),
        )
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{where}: a numeric field is not a number ({exc})") from None


OVERRIDE_ENV = "CITATION_STUDIO_LLM"
DB_ENV = "CITATION_STUDIO_DB"
LIBRARY_ENV = "CITATION_STUDIO_LIBRARY"


def load_config(
    base_dir: Path,
    llm_config: Path | None = None,
    application: Path | None = None,
    override: str | None = None,
) -> AppConfig:
    """Load and validate both files; any missing or malformed entry fails here, at start-up.

    ``override`` (default: the ``CITATION_STUDIO_LLM`` environment variable) names one model id of
    llm_config.yml that then serves every role of every pipeline and variant.
    """
    llm_path = llm_config or base_dir / "llm_config.yml"
    app_path = application or base_dir / "application.yml"
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
    for pipeline, variants in app["llm_configuration"].items():
        if not isinstance(variants, dict):
            raise ConfigError(f"{app_path.name}: llm_configuration.{pipeline}: expected variants")
        llm_cfg[str(pipeline)] = {}
        for variant, roles in variants.items():
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

    citation = app.get("citation", {}) or {}
    strategy = citation.get("keyword_strategy", "sequential")
    if strategy not in ("sequential", "batched"):
        raise ConfigError(
            f"{app_path.name}: citation.keyword_strategy: {strategy!r} is not one of sequential, batched"
        )
    storage = app.get("storage", {}) or {}
    material = app.get("material", {}) or {}
    cfg = AppConfig(
        models=models,
        llm_configuration=llm_cfg,
        keyword_strategy=strategy,
        database=os.environ.get(DB_ENV) or str(storage.get("database", "data/citation_studio.sqlite3")),
        course_dirs=tuple(material.get("course_dirs", ["sample_decks"])),
        prompts_dir=str(app.get("prompts_dir", "prompts")),
        max_upload_mb=int(material.get("max_upload_mb", 50)),
        library_dir=os.environ.get(LIBRARY_ENV) or str(material.get("library_dir", "data/library")),
        base_dir=base_dir,
    )
    for pipeline, per_variant in REQUIRED_ROLES.items():
        for variant, roles in per_variant.items():
            for role in roles:
                try:
                    cfg.resolve(pipeline, variant, role)
                except ConfigError as exc:
                    raise ConfigError(str(exc).replace("application.yml", app_path.name)) from None
    return cfg


def project_root() -> Path:
    return Path(__file__).resolve().parents[2]


CONFIG_DIR_ENV = "CITATION_STUDIO_CONFIG_DIR"


def default_config() -> AppConfig:
    """The files in ``$CITATION_STUDIO_CONFIG_DIR``, else the embedded defaults at the project root."""
    configured = os.environ.get(CONFIG_DIR_ENV)
    return load_config(Path(configured) if configured else project_root())
