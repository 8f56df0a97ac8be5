from .counting_worker import CountingDFlashWorker

__all__ = ["CountingDFlashWorker"]
