"""Test-suite set-up shared by every folder (doctests of referee/ included)."""

collect_ignore = [
    # Importing __main__ would start a server.
    "referee/__main__.py",
    # High Card's encoder.py: it imports the game's package, which exists only while
    # tests/engine/test_registry.py has made it.
    "tests/engine/example_encoder.py",
]
