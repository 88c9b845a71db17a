"""Proof from the machine: read-only readers of the provider's own session records (Codex
rollouts, Claude Code transcripts), T3's protocol log and T3's SQLite state.

This layer does the file I/O; what the records mean is decided in `t3tui.model`
(`provider_record`, `detectors.proof`). Nothing here ever writes to a file it reads.
"""
