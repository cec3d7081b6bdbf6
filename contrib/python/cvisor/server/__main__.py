"""python3 -m cvisor.server: the cvisor-server command."""
import sys

from . import main

sys.exit(main())
