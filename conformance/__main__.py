"""Entry point: `python -m conformance ...`."""

import sys

from conformance.cli import main

sys.exit(main())
