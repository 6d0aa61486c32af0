"""Files: safe model persistence and data readers."""

from ._model_files import load, save

__all__ = ["load", "save"]
