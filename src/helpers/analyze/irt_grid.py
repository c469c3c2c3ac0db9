"""The difficulty grid of the item-response model (``frontier_model``, ``cell_interaction``): 64 equally spaced nodes
in [−6, 6] (the trapezoid rule, spacing 0.19) and the log N(0, 1) weights normalised over them."""

import numpy as np

NODES = np.linspace(-6.0, 6.0, 64)  # z, standard-normal units
LOG_W = -NODES**2 / 2 - np.log(np.exp(-NODES**2 / 2).sum())  # (64,) log weights summing to 1
