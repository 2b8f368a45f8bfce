"""Marking: marks drawn on satellite images, tied to video times (services, selectors, APIs,
geometry validation, the label set) and the workspace page."""
