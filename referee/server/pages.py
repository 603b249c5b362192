"""Pages of the list calls: ``page_size`` and ``page_token`` in, ``next_page_token`` out.

A token is the decimal offset of the page's first item (``ListGames`` reads it as the
application's offset; the other lists are paged here over what the application returns
whole: the lobby's tables, a player's open challenges, a leaderboard, each bounded by the
application). An empty token is the first page; an empty ``next_page_token``, the last.

>>> page(list("abcde"), 2, "")
(['a', 'b'], '2')
>>> page(list("abcde"), 2, "4")
(['e'], '')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from referee.application.tables.errors import bad_request

#: Items of a page when the request names no size, and the most it may name.
DEFAULT_PAGE = 100
MAX_PAGE = 1000
#: Longest page token accepted (a decimal offset).
MAX_PAGE_TOKEN = 12

T = TypeVar("T")


def offset_of(token: str) -> int:
    """Where the page of ``token`` starts; INVALID_ARGUMENT on ``page_token`` for a token no
    list call gave."""
    token = token or "0"
    if not (token.isascii() and token.isdigit()) or len(token) > MAX_PAGE_TOKEN:
        raise bad_request("page_token", "not a next_page_token of this call")
    return int(token)


def size_of(size: int) -> int:
    """The page size a request asks for (0: the default); INVALID_ARGUMENT beyond the most."""
    if not 0 <= size <= MAX_PAGE:
        raise bad_request("page_size", f"must be 0..{MAX_PAGE}")
    return size or DEFAULT_PAGE


def page(items: Sequence[T], size: int, token: str) -> tuple[list[T], str]:
    """The page of ``items`` a request's ``page_size`` and ``page_token`` name, and the next
    page's token."""
    start, size = offset_of(token), size_of(size)
    end = start + size
    return list(items[start:end]), str(end) if end < len(items) else ""


__all__ = ["DEFAULT_PAGE", "MAX_PAGE", "MAX_PAGE_TOKEN", "offset_of", "page", "size_of"]
