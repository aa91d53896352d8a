"""`python -m tether_tui`: the same as `tether tui`."""

import sys

from tether_tui.cli import main

sys.exit(main())
