"""Errors of the search heuristics."""

from iotune.errors import IotuneError


class SearchError(IotuneError, ValueError):
    """A search space, strategy or budget is invalid, or ask/tell were called out of order."""
