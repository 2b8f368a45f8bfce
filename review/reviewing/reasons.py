"""Rejection taxonomy a reviewer picks from (after VLRS-Bench's expert criteria, plus the
cross-view failures specific to video + satellite items)."""

REASONS: dict[str, str] = {
    "ambiguity": "Ambiguity & clarity: the question or options allow several readings",
    "evidence_mismatch": "Visual evidence mismatch: the key is not supported by the video or the image",
    "wrong_answer": "Wrong answer key",
    "triviality": "Triviality: answerable without looking, or pure detection",
    "professional_relevance": "Professional relevance: non-standard terms or an unrealistic scenario",
    "mark_geometry": "Mark geometry is wrong (region, point or track misplaced)",
    "time_anchor": "Time anchor is wrong (interval or first-seen time)",
    "distractor_quality": "Distractors are implausible or also correct",
}
