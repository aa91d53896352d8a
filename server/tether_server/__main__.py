import sys

from tether_server.cli import main

sys.exit(main())
