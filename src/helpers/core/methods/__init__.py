"""Inference-time methods, one module each; importing the package registers them all."""

from helpers.core.methods import agent, best_of_n, majority_vote, self_refine, vanilla  # noqa: F401  (register)
from helpers.core.methods.base import ESTIMATE_COLUMNS, Method, collected_methods, get_method, method_forms, register

__all__ = ["ESTIMATE_COLUMNS", "Method", "collected_methods", "get_method", "method_forms", "register"]
