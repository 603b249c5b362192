"""The search players: information-set searches over what one seat knows.

Algorithms apart from the game interface (as OpenSpiel keeps them): :mod:`~referee.search.worlds`
samples the complete states a seat cannot tell from the real one (each game's own ``worlds``
module says what its observations rule out), :mod:`~referee.search.beliefs` weighs them by how
well they explain the other seats' recent moves, :mod:`~referee.search.ismcts` is the tree
search and :mod:`~referee.search.pimc` the flat determinised one, both over the engine's
:class:`~referee.engine.search_table.SearchTable` (cheap copies and undo, which the engine's
``Table.fork`` makes).

This package imports :mod:`referee.engine`; the engine never imports it
(``tests/engine/test_sans_io.py``). Like the engine it is sans-I/O.
"""
