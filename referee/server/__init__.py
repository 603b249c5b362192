"""The transports: the gRPC servicer, the HTTP adapter, value-to-message conversion, status
mapping, and the process around them (the referee itself is :mod:`referee.application`)."""
