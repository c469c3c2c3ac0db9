"""One exception type whose message is a single line a researcher can act on."""


class CostOfPassError(Exception):
    """A user-facing error: bad parameters, missing data, price or key, or over budget.

    The pipeline prints ``str(err)`` as one line and exits non-zero before any call is made.
    """

    def __init__(self, message: str):
        super().__init__(" ".join(str(message).split()))
