"""Conversations and their messages (the schema the store had before it was versioned).

A SQLite file written before migrations existed already holds these tables: they are kept as they are,
with every stored answer, and the file is stamped with this revision.

Revision ID: 0001
Revises:
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    existing = set(sa.inspect(op.get_bind()).get_table_names())
    if "conversations" not in existing:
        op.create_table(
            "conversations",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("session_id", sa.Text, nullable=False),
            sa.Column("course_id", sa.Integer, nullable=False),
            sa.Column("unit_id", sa.Integer, nullable=False),
            sa.Column("title", sa.Text, nullable=False),
            sa.Column("created", sa.Float, nullable=False),
            sqlite_autoincrement=True,
        )
        op.create_index("conversations_by_session", "conversations", ["session_id", "id"])
    if "messages" not in existing:
        op.create_table(
            "messages",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("conversation_id", sa.Integer, sa.ForeignKey("conversations.id", ondelete="CASCADE"),
                      nullable=False),
            sa.Column("role", sa.Text, nullable=False),
            sa.Column("content", sa.Text, nullable=False),
            sa.Column("meta", sa.Text, nullable=False, server_default="{}"),
            sa.Column("created", sa.Float, nullable=False),
            sa.CheckConstraint("role IN ('user', 'assistant')", name="messages_role"),
            sqlite_autoincrement=True,
        )
        op.create_index("messages_by_conversation", "messages", ["conversation_id", "id"])


def downgrade() -> None:
    op.drop_table("messages")
    op.drop_table("conversations")
