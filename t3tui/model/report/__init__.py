"""The triage report: timeline moments from stream items, the document (its Markdown: t3tui.words.report)."""

from t3tui.model.report.document import (
    ActionDone,
    CheckInDone,
    TriageInput,
    build_report,
    lineage_ids,
)
from t3tui.model.report.timeline import Moment, TimelineTracker

__all__ = ["ActionDone", "CheckInDone", "Moment", "TimelineTracker", "TriageInput",
           "build_report", "lineage_ids"]
