"""Test-suite set-up shared by every folder (doctests of referee/ included)."""

collect_ignore = [
    # Importing __main__ would start a server.
    "referee/__main__.py",
    # High Card's encoder.py: it imports the game's package, which exists only while
    # tests/engine/test_registry.py has made it.
    "tests/engine/example_encoder.py",
]


def pytest_configure(config: object) -> None:
    """With ``REFEREE_EXPECT_BUILD`` (``pure`` or ``compiled``), refuse to run on another build
    (CI's compiled stage, deploy/compiled/test.sh: the tests would pass on the pure source)."""
    import os

    expected = os.environ.get("REFEREE_EXPECT_BUILD")
    if expected:
        import pytest

        from referee import build

        running = build.current()
        if running.name != expected:
            raise pytest.UsageError(
                f"REFEREE_EXPECT_BUILD={expected}, but this runs the {running.name} build"
            )
        print(running.describe().splitlines()[0])
