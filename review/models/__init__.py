"""Tables and database constraints only; business rules live in the stage packages."""

from .audit import ItemEvent
from .policy import RejectionReason, ReviewPolicy
from .releases import Release, ReleaseItem
from .reviews import Adjudication, Review
from .submissions import Submission
from .workflow import GoldItem, ItemRevision, ReviewAssignment

__all__ = [
    "Adjudication",
    "GoldItem",
    "ItemEvent",
    "ItemRevision",
    "RejectionReason",
    "Release",
    "ReleaseItem",
    "Review",
    "ReviewAssignment",
    "ReviewPolicy",
    "Submission",
]
