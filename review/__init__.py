"""The second half of the flow, one package per stage: reviewing -> releasing -> scoring, plus
dashboards. It builds on the annotator app (and item state changes go through its lifecycle)."""
