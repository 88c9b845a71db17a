"""The pure supervisor model: tree, derived states, detectors, check-ins. No I/O, no clock."""

from t3tui.model.changes import Change
from t3tui.model.checkin import CheckIn, CheckInPlan, CheckInVerdict
from t3tui.model.config import DetectorConfig
from t3tui.model.findings import Finding
from t3tui.model.rows import PendingRequest, SupervisorView, TaskInfo, ThreadRow
from t3tui.model.supervisor import Supervisor

__all__ = [
    "Change",
    "CheckIn",
    "CheckInPlan",
    "CheckInVerdict",
    "DetectorConfig",
    "Finding",
    "PendingRequest",
    "Supervisor",
    "SupervisorView",
    "TaskInfo",
    "ThreadRow",
]
