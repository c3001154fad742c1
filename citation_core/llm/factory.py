"""Builds a fresh model client from its configuration (every task gets its own)."""

from __future__ import annotations

from .base import ChatModel
from .config import ModelConfig
from .offline import OfflineModel


def create_model(config: ModelConfig) -> ChatModel:
    if config.type == "offline":
        return OfflineModel(config.id, config.model)
    from .openai_chat import OpenAIChatModel  # the SDK loads only when a configured model needs it

    return OpenAIChatModel(config)
