"""The gRPC server: servicer, live-game hub, errors, metrics and the process around them."""
