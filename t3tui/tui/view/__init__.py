"""What the app shows, as plain text: labels, rows, detail, timeline, help, notices (no widgets)."""
