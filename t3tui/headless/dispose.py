"""`t3tui dispose CHILD`: don't wake the parent for this task (see `delivery.py`)."""

from t3tui.headless.delivery import register_action, run_action

register = register_action("dispose")
run = run_action("dispose")
