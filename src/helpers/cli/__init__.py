"""Stage 5, cli: the runner (``cost-of-pass run|all|report|quarto|reprice``), stage skipping, calibration and price
tools. May import every stage; nothing imports it."""
