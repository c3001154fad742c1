"""Alembic environment: migrations run on the connection ``LmsStore`` hands over (``config.attributes``).

Alembic loads this file by path, not as a module of the package; the tables it compares with for
``alembic revision --autogenerate`` are in ``citation_core/lms/schema.py``.
"""

from __future__ import annotations

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
