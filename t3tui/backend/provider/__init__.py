"""The scripted agent provider: instruction language, real subprocesses, dispatch policy, faults."""

from t3tui.backend.provider.config import TOOL_DISPATCH_POLICIES, ProviderInstanceConfig
from t3tui.backend.provider.faults import (
    FAULTS,
    SETTLE_DROPS_CHILD_SUBSCRIPTION,
    UnknownFault,
    check_faults,
)
from t3tui.backend.provider.instance import Notification, ScriptedProvider
from t3tui.backend.provider.instructions import parse
from t3tui.backend.provider.log import ProviderLog, read_log

__all__ = [
    "FAULTS",
    "SETTLE_DROPS_CHILD_SUBSCRIPTION",
    "TOOL_DISPATCH_POLICIES",
    "Notification",
    "ProviderInstanceConfig",
    "ProviderLog",
    "ScriptedProvider",
    "UnknownFault",
    "check_faults",
    "parse",
    "read_log",
]
