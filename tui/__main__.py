"""`python -m tui`: the `roost` command (how `roost serve-ssh` starts each session's dashboard)."""

import sys

from tui.cli import main

sys.exit(main())
