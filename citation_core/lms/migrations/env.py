"""Alembic environment: migrations run on the connection ``LmsStore`` hands over (``config.attributes``)."""

from __future__ import annotations

from alembic import context

from citation_core.lms.schema import METADATA

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=METADATA, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
