"""One exception type whose message is a single line a researcher can act on."""


class CostOfPassError(Exception):
    """A user-facing error: bad parameters, missing data, price or key, or over budget.

    The pipeline prints ``str(err)`` as one line and exits non-zero before any call is made.
    """

    def __init__(self, message: str):
        from helpers.core.redaction import redact

        super().__init__(redact(" ".join(str(message).split())))


class MissingData(CostOfPassError):
    """A task's benchmark file is not in the data directory (a set that needs it cannot run here)."""


def run_command(action) -> int:
    """Run a command's action: 0 on success; a CostOfPassError is one line on stderr and exit code 2."""
    import sys

    try:
        action()
    except CostOfPassError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0
