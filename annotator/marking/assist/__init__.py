"""Assisted trajectories: track a target in the video, project it onto the map image through the
keyframes' placements, and leave a draft trajectory mark for its author to correct and confirm."""
