"""A gRPC referee for hidden-information card games.

Layers, from the inside out: ``engine`` (the game interface, sans-I/O), ``games`` (one package
per game), ``store`` (event stores), ``v1`` (code generated from ``protos/``), ``server``
(the gRPC service), ``scenario`` (scripted games). The clients live in ``clients/``.
"""

__version__ = "0.1.0"

# Before any other module of the package: a compiled build's modules load from their
# extensions, checked against their sources, or from their sources with REFEREE_PURE=1.
from referee import build as _build

_build.install()
