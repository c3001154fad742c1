"""Test support for code that uses citation_core's models, shipped with the package.

* :class:`ScriptedModel` - an in-process ``ChatModel`` that is told its replies, task by task.
* :class:`LocalChatServer` - an OpenAI-compatible chat-completions server on 127.0.0.1 (stdlib only),
  to run ``openai_chat`` models over real HTTP; its handler returns a :class:`Reply` per request and
  every request is kept as a :class:`RecordedRequest`.
* :func:`cooperative_handler` - a server handler that answers the citation tasks like a cooperative
  LLM, told the task by the ``X-Citation-Task`` header that the OpenAI-compatible client sends.
* :func:`scripted` and :func:`echo_handler` - simple server handlers.
"""

from .cooperative import cooperative_handler
from .scripted_model import ScriptedModel, ScriptedReplies, ScriptedReply
from .server import ChatRequest, Handler, LocalChatServer, RecordedRequest, Reply, echo_handler, scripted

__all__ = [
    "ChatRequest",
    "Handler",
    "LocalChatServer",
    "RecordedRequest",
    "Reply",
    "ScriptedModel",
    "ScriptedReplies",
    "ScriptedReply",
    "cooperative_handler",
    "echo_handler",
    "scripted",
]
