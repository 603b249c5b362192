"""Which build of the referee runs: the pure source, or the compiled build (``make compiled``).

The compiled build is the same source with some modules compiled by mypyc; its wheel carries
each compiled module's ``.py`` beside its extension, and a module generated when it was built,
``referee._compiled``, recording which modules it compiled and the sha256 of each one's source.
The pure source (a checkout, an editable install, a plain wheel) has no such record.

:func:`install`, run by ``referee/__init__.py`` before any other module of the package is
imported, puts a finder first on ``sys.meta_path`` when the record is there:

- with ``REFEREE_PURE=1``, the finder loads each recorded module from its ``.py`` (the ordinary
  source loader), so the pure source runs where the compiled build is installed;
- otherwise it first checks, for every recorded module, that its extension is there and that
  the ``.py`` beside it is the one it was compiled from (:func:`check`), and raises an
  :class:`ImportError` that names the module and says what to do when not; the finder then
  refuses to load a recorded module from anything but its extension. A missing extension or
  an edited source never falls back to the pure code silently (a build would run the wrong
  code and say it is compiled).

A compiled module's frozen dataclasses are given the ``__setstate__`` that ``dataclasses``
gives a pure one (:func:`restorable`): mypyc's own assigns each field through the class's
``__setattr__``, which a frozen class refuses, so ``copy.copy``, ``copy.deepcopy`` and
``pickle`` of its values (a search's copies, a house bot's view sent to a worker process)
would fail where the pure source's work.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

#: The environment variable that runs the pure source where the compiled build is installed.
PURE = "REFEREE_PURE"
#: What every error of a broken compiled build tells its user to do.
REMEDY = f"rebuild with `make compiled`, or set {PURE}=1 to run the pure source"


@dataclass(frozen=True)
class Build:
    """The build that runs. ``name`` is ``"pure"`` or ``"compiled"``; ``compiled`` the modules
    running compiled (none for pure); ``installed`` the modules the installed build compiled
    (the same, unless ``REFEREE_PURE=1`` set them aside)."""

    name: str
    compiled: tuple[str, ...]
    installed: tuple[str, ...]

    def describe(self) -> str:
        """The build in a few lines, as ``referee --version`` prints it.

        >>> print(Build("pure", (), ()).describe())
        pure build (the Python source)
        >>> print(Build("pure", (), ("referee.engine.table",)).describe())
        pure build (REFEREE_PURE=1: the compiled build installed here is set aside)
        >>> table = ("referee.engine.table",)
        >>> print(Build("compiled", table, table).describe())
        compiled build (mypyc), 1 module compiled:
          referee.engine.table
        """
        if self.name == "compiled":
            lines = [f"compiled build (mypyc), {len(self.compiled)} module"]
            lines[0] += ("s" if len(self.compiled) != 1 else "") + " compiled:"
            return "\n".join([*lines, *(f"  {name}" for name in self.compiled)])
        if self.installed:
            return f"pure build ({PURE}=1: the compiled build installed here is set aside)"
        return "pure build (the Python source)"


def source_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def pure_requested(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether ``REFEREE_PURE`` asks for the pure source (``1``; unset, empty or ``0`` do not).

    >>> [pure_requested({PURE: value}) for value in ("", "0", "1")]
    [False, False, True]
    """
    value = environ.get(PURE, "")
    if value not in ("", "0", "1"):
        raise ValueError(f"{PURE}={value!r}: set it to 1 (the pure source) or leave it unset")
    return value == "1"


def _record() -> ModuleType | None:
    """The record a compiled build carries (``referee._compiled``), or None in the pure source."""
    if importlib.util.find_spec("referee._compiled") is None:
        return None
    return importlib.import_module("referee._compiled")


def current() -> Build:
    """The build this process runs."""
    record = _record()
    installed: tuple[str, ...] = tuple(sorted(record.MODULES)) if record is not None else ()
    if not installed or pure_requested():
        return Build("pure", (), installed)
    return Build("compiled", installed, installed)


class Recorded(importlib.abc.MetaPathFinder):
    """A finder of the modules the compiled build compiled (``modules``: name to sha256)."""

    def __init__(self, modules: Mapping[str, str]) -> None:
        self.modules = modules

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        return self.find(fullname, path) if fullname in self.modules else None

    def find(self, fullname: str, path: Sequence[str] | None) -> importlib.machinery.ModuleSpec:
        raise NotImplementedError


class PureSource(Recorded):
    """Finds each module the compiled build compiled at its ``.py`` beside the extension, and
    loads it with the ordinary source loader (``REFEREE_PURE=1``)."""

    def find(self, fullname: str, path: Sequence[str] | None) -> importlib.machinery.ModuleSpec:
        leaf = fullname.rpartition(".")[2] + ".py"
        for folder in path or ():
            source = Path(folder, leaf)
            spec = importlib.util.spec_from_file_location(fullname, source)
            if source.is_file() and spec is not None:
                return spec
        raise ImportError(
            f"{fullname}: {PURE}=1 but its source {leaf} is not installed beside its extension;"
            " reinstall the compiled build (`make compiled`)",
            name=fullname,
        )


class CompiledOnly(Recorded):
    """Lets each module the compiled build compiled load only from its extension, and makes
    the frozen dataclasses of every compiled module loaded :func:`restorable`."""

    def find(self, fullname: str, path: Sequence[str] | None) -> importlib.machinery.ModuleSpec:
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None or (spec.origin or "").endswith(".py"):
            raise ImportError(
                f"{fullname} is recorded as compiled but its extension is missing; {REMEDY}",
                name=fullname,
            )
        spec.loader = Restoring(spec.loader, self.modules)
        return spec


class Restoring(importlib.abc.Loader):
    """An extension's loader that, once the module is loaded, makes the frozen dataclasses of
    every compiled module now loaded :func:`restorable`: a compiled module's import of another
    of the build's modules initialises it directly, past the import system's finders."""

    def __init__(self, loader: importlib.abc.Loader, modules: Mapping[str, str]) -> None:
        self.loader = loader
        self.modules = modules

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.loader.exec_module(module)
        for name in self.modules.keys() - _RESTORED:
            loaded = sys.modules.get(name)
            if loaded is not None:
                _RESTORED.add(name)
                for value in list(vars(loaded).values()):
                    if isinstance(value, type) and value.__module__ == name:
                        restorable(value)


#: The compiled modules whose classes :class:`Restoring` has seen to.
_RESTORED: set[str] = set()


def restorable(cls: type) -> None:
    """Give ``cls``, when a frozen dataclass, the ``__setstate__`` of a pure frozen dataclass:
    each field set past the frozen class's ``__setattr__``."""
    params = getattr(cls, "__dataclass_params__", None)
    if dataclasses.is_dataclass(cls) and params is not None and params.frozen:
        cls.__setstate__ = _set_state  # type: ignore[attr-defined]


def _set_state(self: object, state: dict[str, Any]) -> None:
    # The state is what mypyc's __getstate__ gives: a dict of the attributes.
    for name, value in state.items():
        object.__setattr__(self, name, value)


def install() -> None:
    """Put the finder the installed build needs first on ``sys.meta_path`` (none for the pure
    source), after checking a compiled build whole (:func:`check`)."""
    record = _record()
    if record is None:
        return
    modules: dict[str, str] = dict(record.MODULES)
    if pure_requested():
        sys.meta_path.insert(0, PureSource(modules))
        return
    check(Path(record.__file__ or "").parent.parent, record.SHARED, modules)
    sys.meta_path.insert(0, CompiledOnly(modules))


def check(root: Path, shared: str, modules: Mapping[str, str]) -> None:
    """Raise an :class:`ImportError` that says what to do unless the compiled build installed
    at ``root`` (the folder holding the package) has mypyc's shared library ``shared`` and each
    of ``modules``' extensions, with beside it the source whose sha256 the record holds. All
    at once, when the package is imported: a compiled module imported by another compiled
    module is loaded past the import system's finders (and importing one here would run the
    package's modules before the finder is in place)."""
    suffixes = importlib.machinery.EXTENSION_SUFFIXES

    def extension(name: str) -> bool:
        stem = root / name.replace(".", "/")
        return any(stem.with_name(stem.name + suffix).is_file() for suffix in suffixes)

    if shared and not extension(shared):
        raise ImportError(f"the compiled build's shared library {shared} is missing; {REMEDY}")
    for name, digest in sorted(modules.items()):
        if not extension(name):
            raise ImportError(
                f"{name} is recorded as compiled but its extension is missing; {REMEDY}", name=name
            )
        source = root / (name.replace(".", "/") + ".py")
        if not source.is_file() or source_digest(source) != digest:
            raise ImportError(
                f"{name}: its extension is stale (the source {source} is not the one it was "
                f"compiled from); {REMEDY}",
                name=name,
            )
