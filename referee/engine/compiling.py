"""What the compiled build's mypyc reads from the source: its class options, ``mypyc_attr``.

mypyc takes ``mypyc_attr`` from ``mypy_extensions`` when it compiles a module; at run time the
decorator does nothing. This module is never compiled, so the name is bound here, by the
interpreter, and the package needs no ``mypy_extensions`` to run (a compiled module cannot
define it itself: mypyc compiles the branch that type checkers do not see as unreachable).
"""

from __future__ import annotations

import typing
from collections.abc import Callable

if typing.TYPE_CHECKING:
    from mypy_extensions import mypyc_attr as mypyc_attr
else:

    def mypyc_attr(*_: object, **__: object) -> Callable[[type], type]:
        """Nothing at run time (see the module's docstring)."""
        return lambda cls: cls
