"""Test-suite set-up shared by every folder (doctests of referee/ included)."""

# Importing __main__ would start a server.
collect_ignore = ["referee/__main__.py"]
