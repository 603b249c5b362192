"""The house: the referee's own bots, seated through the lobby like any player.

Imports the rooms below it (lobby, players, tables).
"""
