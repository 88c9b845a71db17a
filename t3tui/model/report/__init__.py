"""The triage report: timeline moments from stream items, the document, its Markdown."""

from t3tui.model.report.document import (
    ActionDone,
    CheckInDone,
    TriageInput,
    build_report,
    lineage_ids,
)
from t3tui.model.report.markdown import render_markdown
from t3tui.model.report.timeline import Moment, TimelineTracker

__all__ = ["ActionDone", "CheckInDone", "Moment", "TimelineTracker", "TriageInput",
           "build_report", "lineage_ids", "render_markdown"]
