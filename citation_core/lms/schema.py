"""The LMS store's tables, as SQLAlchemy Core sees them (the migrations in ``migrations/`` make them)."""

from __future__ import annotations

import sqlalchemy as sa

METADATA = sa.MetaData()

CONVERSATIONS = sa.Table(
    "conversations", METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("session_id", sa.Text, nullable=False),
    sa.Column("course_id", sa.Integer, nullable=False),
    sa.Column("unit_id", sa.Integer, nullable=False),
    sa.Column("title", sa.Text, nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Index("conversations_by_session", "session_id", "id"),
    sqlite_autoincrement=True,
)

MESSAGES = sa.Table(
    "messages", METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("conversation_id", sa.Integer, sa.ForeignKey("conversations.id", ondelete="CASCADE"), nullable=False),
    sa.Column("role", sa.Text, nullable=False),
    sa.Column("content", sa.Text, nullable=False),
    sa.Column("meta", sa.Text, nullable=False, server_default="{}"),
    sa.Column("created", sa.Float, nullable=False),
    sa.CheckConstraint("role IN ('user', 'assistant')", name="messages_role"),
    sa.Index("messages_by_conversation", "conversation_id", "id"),
    sqlite_autoincrement=True,
)
