"""``python -m referee`` is ``referee serve``."""

import sys

from referee.cli import main

sys.exit(main(sys.argv[1:] or ["serve"]))
