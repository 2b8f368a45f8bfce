"""The audit trail of items: every lifecycle transition (who, when, from, to, why) as an
append-only row, recorded from the lifecycle's signal and read by admins and authors."""
