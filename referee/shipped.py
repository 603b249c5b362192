"""Files a wheel carries beside the code: the rules pages and the built web client.

In a checkout (and an editable install of it) they are the repository's own files:
``docs/rules/`` and the web client's build, ``clients/web/dist`` (``make web``). A wheel has no
repository beside it, so ``deploy/compiled/build.sh`` (``make wheels``, ``make compiled``)
copies both into the package, as ``referee/_shipped/rules`` and ``referee/_shipped/web``
(``pyproject.toml``'s package data). Which copy an install reads follows from what it is: a
package that carries the folder is a wheel's, and reads only the wheel's copy.
"""

from __future__ import annotations

from pathlib import Path

#: The folder a wheel built by ``deploy/compiled/build.sh`` carries; a checkout has none.
SHIPPED = Path(__file__).resolve().parent / "_shipped"
#: The repository root of a checkout (meaningless for a wheel, which reads ``SHIPPED``).
CHECKOUT = Path(__file__).resolve().parent.parent


def location(shipped: str, checkout: str) -> Path:
    """The folder ``SHIPPED / shipped`` when this install is a wheel that carries its files,
    else ``checkout`` (relative to the repository root) in the checkout that runs."""
    return SHIPPED / shipped if SHIPPED.is_dir() else CHECKOUT / checkout
