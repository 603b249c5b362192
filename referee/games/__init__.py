"""One package per game, each implementing :class:`referee.engine.Game`."""
