"""Quality measures: agreement between reviewers and the human baseline (pure functions over
plain records; the statistics come from well-kept libraries)."""
