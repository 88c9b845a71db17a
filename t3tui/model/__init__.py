"""The pure supervisor model: tree, derived states, detectors, check-ins. No I/O, no clock."""

from t3tui.model.changes import Change, ChangeTracker, changes
from t3tui.model.checkin import CheckIn, CheckInPlan, CheckInVerdict, checkin_verdict, plan_checkin
from t3tui.model.config import DetectorConfig
from t3tui.model.findings import Finding
from t3tui.model.rows import PendingRequest, SupervisorView, TaskInfo, ThreadRow
from t3tui.model.status_json import exit_code, status_document
from t3tui.model.supervisor import Supervisor
from t3tui.model.wire import ModelInputError

__all__ = [
    "Change",
    "ChangeTracker",
    "CheckIn",
    "CheckInPlan",
    "CheckInVerdict",
    "DetectorConfig",
    "Finding",
    "ModelInputError",
    "PendingRequest",
    "Supervisor",
    "SupervisorView",
    "TaskInfo",
    "ThreadRow",
    "changes",
    "checkin_verdict",
    "exit_code",
    "plan_checkin",
    "status_document",
]
