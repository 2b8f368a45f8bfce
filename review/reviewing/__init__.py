"""Reviewing: blind answers, decisions with reasons from the taxonomy, the reviewer queue."""
