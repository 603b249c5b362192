"""referee-tournament: bot tournaments on the referee (``referee.v1``), fair and reproducible.

A config names the games, the bots (each a command line started as its own process per game
and seat, or a built-in ``referee_bot`` strategy) and the format: duplicate deals (each deal
played once per seating of the bots, so the luck of the cards cancels out), round robin over
seatings, or Swiss. The runner rates the bots (openskill, with uncertainty), gives win rates
with Wilson intervals and every bot's faults, and writes ``results.json``, ``standings.png``
and ``report.html`` with each game's replay data. ``--local`` plays the same tournament
in-process on the engine (built-in strategies only), with identical results.

See ``docs/tournaments.md``.
"""
