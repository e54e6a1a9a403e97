"""Stoker's Python side: PyTorch batches from the ranks' loaders in Spark's JVM.

``stoker.torch`` holds the API (``read``, ``ranks``, ``batches``); ``stoker._channel`` maps a
rank's shared-memory file.
"""

from stoker._channel import StokerError

__all__ = ["StokerError"]
__version__ = "0.1.0"
