"""Tables and database constraints only; business rules live in the stage packages."""

from .releases import Release, ReleaseItem
from .reviews import Review
from .submissions import Submission

__all__ = ["Release", "ReleaseItem", "Review", "Submission"]
