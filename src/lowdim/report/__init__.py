"""The HTML report: data summary, scree plot, embeddings side by side, quality table."""

from ._build import MethodResult, Report, build_report, run_method

__all__ = ["MethodResult", "Report", "build_report", "run_method"]
