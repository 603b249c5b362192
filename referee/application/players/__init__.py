"""The players: accounts, platform identities, ratings, seating and player sessions.

Imports the tables' room, never the lobby's or the house's.
"""
