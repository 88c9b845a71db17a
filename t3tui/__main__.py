import sys

from t3tui.cli import main

sys.exit(main())
