"""The report's figures (matplotlib/seaborn), saved as PNG + SVG under results/<set>/figures/: a module per family of
figures (``over_time``, ``bars``, ``costs``, ``tradeoffs``, ``coverage``) on what they share (``style``, ``panels``)."""
