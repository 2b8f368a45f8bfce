"""Every write of the review app."""

from .releases import release_build
from .reviews import REQUIRED_APPROVALS, review_decide, review_start

__all__ = ["REQUIRED_APPROVALS", "release_build", "review_decide", "review_start"]
