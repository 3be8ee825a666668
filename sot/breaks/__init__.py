"""Graph-break and fallback reasons (resume functions come with graph breaks)."""
from .reasons import BreakReason, FallbackError

__all__ = ["BreakReason", "FallbackError"]
