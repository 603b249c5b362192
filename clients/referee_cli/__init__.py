"""referee-cli: a terminal client for people, built on the public gRPC API only.

:mod:`referee_cli.render` turns views, events and commands into text (pure functions);
:mod:`referee_cli.app` is the interactive program.
"""
