"""Processing steps: one function per job kind, (job, report_progress) -> finding."""
