"""Throw-away PostgreSQL databases for tests (the store's and the replicas' tests).

The server to use is ``REFEREE_TEST_POSTGRES`` (a libpq URL of a database whose user may
``CREATE DATABASE``; default: the local server on 127.0.0.1 as ``postgres``). Each test module
(or test) gets a database of its own with a random name, dropped at the end, so runs never
collide. Without a reachable server the tests are skipped with a message, unless
``REFEREE_REQUIRE_POSTGRES`` is set (CI sets it): then they fail.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import pytest

ADMIN_URL = os.environ.get("REFEREE_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")
REQUIRED = os.environ.get("REFEREE_REQUIRE_POSTGRES", "") not in ("", "0")


def _unavailable(reason: str) -> None:
    message = f"PostgreSQL not available at {ADMIN_URL}: {reason}"
    if REQUIRED:
        pytest.fail(f"{message} (REFEREE_REQUIRE_POSTGRES is set, so this is a failure)")
    pytest.skip(message)


@contextlib.contextmanager
def temporary_database() -> Iterator[str]:
    """A new empty database (its ``postgresql://`` URL), dropped on exit."""
    try:
        import psycopg

        from referee.store.postgres import scratch_database
    except ImportError as error:
        _unavailable(f"psycopg is not installed ({error})")
    with contextlib.ExitStack() as stack:
        try:
            url = stack.enter_context(scratch_database(ADMIN_URL, "referee_test"))
        except psycopg.OperationalError as error:
            _unavailable(str(error).strip())
        yield url


def postgres_url(url: str) -> str:
    """``url`` (key=value or URL form) as a ``postgresql://`` URL, as ``--store`` takes it."""
    from psycopg.conninfo import conninfo_to_dict

    params = conninfo_to_dict(url)
    user = params.get("user") or ""
    host = params.get("host") or "127.0.0.1"
    port = params.get("port") or "5432"
    return f"postgresql://{user}{'@' if user else ''}{host}:{port}/{params['dbname']}"
