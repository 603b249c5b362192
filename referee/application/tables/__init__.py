"""The tables: live games, their commands, creation, streams and fan-out, clocks and the
referee's own moves (the timekeeper), the repository, access, values, errors and limits.

The bottom room: it imports no other room of the application.
"""
