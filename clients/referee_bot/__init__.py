"""referee-bot: programs that play the referee's games over gRPC (``referee.v1`` only).

``referee-bot play`` plays one seat; ``referee-bot selfplay`` creates games and plays every
seat. Strategies live in :mod:`referee_bot.strategies`, the gRPC loop in
:mod:`referee_bot.runner`.
"""

DEFAULT_SERVER = "127.0.0.1:50051"
