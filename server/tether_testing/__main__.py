"""`python -m tether_testing --script FILE.json`: run the fake Responses API server."""

import sys

from tether_testing.fake_responses import main

sys.exit(main())
