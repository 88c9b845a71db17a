"""Detectors: pure functions `(context, config, now) -> list[Finding]`.

Rules marked with `common.declares` name the facts they read and their dwell's config field.
"""

from t3tui.model.detectors.delivery import delivery_findings
from t3tui.model.detectors.duplicates import duplicate_findings
from t3tui.model.detectors.interrupts import interrupt_findings
from t3tui.model.detectors.phantom import phantom_findings
from t3tui.model.detectors.proof import proof_findings
from t3tui.model.detectors.serialized import serialized_findings
from t3tui.model.detectors.stuck import stuck_findings

__all__ = ["delivery_findings", "duplicate_findings", "interrupt_findings", "phantom_findings",
           "proof_findings", "serialized_findings", "stuck_findings"]
