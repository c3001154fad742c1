"""Versioned schema migrations of the LMS store (Alembic), run by ``LmsStore`` when it opens a database."""
