"""`t3tui acknowledge CHILD`: mark a child's result as seen by its parent (see `delivery.py`)."""

from t3tui.headless.delivery import register_action, run_action

register = register_action("acknowledge")
run = run_action("acknowledge")
