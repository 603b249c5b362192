"""The service's logging set-up leaves later configurations in charge of the referee's loggers.

The application's modules take their logger at import (``structlog.get_logger("referee")``).
With structlog's logger cache on, the first line such a logger wrote bound it to the
configuration of that moment for good (its processor chain, which the next
``configure_logging`` replaces): an embedding host's later ``structlog.configure`` (or a
test's ``capture_logs``) never saw the referee's lines again, which made a log-leak test pass
or fail by the order the tests ran in.
"""

from __future__ import annotations

import logging

from structlog.testing import capture_logs

from referee.application.players import accounts
from referee.server.app import configure_logging


def test_a_later_configuration_sees_a_module_logger() -> None:
    configure_logging(logging.INFO)
    accounts.log.info("before_capture")  # the first line: the one a cache would bind to
    configure_logging(logging.INFO)  # a second server in the process: a new processor chain
    with capture_logs() as logs:
        accounts.log.info("during_capture", games=1)
    assert [line["event"] for line in logs] == ["during_capture"]
