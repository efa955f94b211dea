"""``python -m dppca``: the command line."""

from dppca.cli import main

raise SystemExit(main())
