"""The lobby: the listed tables, challenges, pairing and its rule.

Imports the players' and the tables' rooms, never the house's.
"""
