"""Stage 3, analyze: cost-of-pass math, the analysis of a set, bootstrap and model-based intervals, trends,
counterfactuals, routing, checks of the model and validity on known truth; pure functions on frames and arrays.
Imports core, collect and grade; must not import publish or cli."""
