"""What the serving layer imports."""

from .aliases import BaseWorker as EngineWorker

__all__ = ["EngineWorker"]
