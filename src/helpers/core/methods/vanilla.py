"""``vanilla``: one call with the paper's prompt."""

from helpers.core.methods.base import Method, register

register("vanilla", "vanilla", lambda m: Method("vanilla", collected_calls=1, billed_calls=1))
