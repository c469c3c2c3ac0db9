"""What a verdict's reason may say of an exception (issue 63 item 7): its type's name, and its message only where the
message is one of CPython's own that carries no data of the call (``list index out of range``, ``name 'x' is not
defined``), never a program's own words or a hidden input.

A reason is stored, cached and published (``grader_disagreements``, the caveats): a program that writes it could put a
link, a formula, reversed or invisible text, or the hidden inputs it was called with in front of the report's reader.
So the harness keeps only what no program chooses beyond a name: the exception type's name (an identifier, else
"an exception of the program's own type"), which side raised it (the program, or a hidden test's assertion), and a
message matched whole by one of the patterns below, whose only free parts are short ASCII names and two-digit counts;
a message or type name holding an input of any call of the job is dropped, as is a dotted name that no module of
the standard library starts (``'www.example.com'``). What stays open: a program chooses which of these
messages it raises, and a name of up to 30 characters in it — a channel of a few bytes per verdict (an input can be
written in it encoded), never a sentence, link or formula. Standard library only: the sandbox's worker imports this
file (it is copied into the boundary beside ``sandbox_server.py``).
"""

import re

IDENT = r"[A-Za-z_][A-Za-z0-9_.]{0,29}"  # a name in a message (ASCII: ``re.ASCII`` below)
_I, _N = f"'{IDENT}'", r"\d{1,2}"  # a quoted name; a count (two digits: no room for a number the program chose)
_F = rf"(<lambda>|{IDENT})"  # a function's name
_KINDS = (r"(a string, a bytes-like object or a (real )?number|a string or a number|a (real "
          r")?number|an integer|a string|str|int)")
_ERRNO = ("Operation not permitted|No such file or directory|Permission denied|File exists|Not a directory|Is a "
          "directory|Invalid argument|Too many open files|File too large|No space left on device|Read-only file system"
          "|Cannot allocate memory|Function not implemented|Bad file descriptor|Broken pipe|Disk quota exceeded"
          "|Resource temporarily unavailable|Too many links|File name too long|Directory "
          "not empty|Device or resource busy")
_OWN = [  # CPython's messages (3.9–3.13) with nothing of the call's data in them
    r"(list|string|tuple|range|bytearray|bytes|array|deque) index out of range",
    r"(integer |float )?division( or modulo)? by zero", r"(integer|float) modulo( by zero)?", r"division by zero",
    rf"name {_I} is not defined", rf"cannot access (local|free) variable {_I} where it is not associated with a value",
    rf"local variable {_I} referenced before assignment",
    rf"free variable {_I} referenced before assignment in enclosing scope",
    rf"No module named {_I}", rf"cannot import name {_I} from {_I}( \(unknown location\))?",
    rf"{_I} object is not (subscriptable|callable|iterable|an iterator|reversible)",
    rf"{_I} object has no attribute {_I}", rf"(type object|module) {_I} has no attribute {_I}",
    rf"{_I} object does not support item (assignment|deletion)",
    rf"{_I} object cannot be interpreted as an integer", rf"object of type {_I} has no len\(\)",
    rf"unsupported operand type\(s\) for [-+*/%@&|^<>]{{1,3}}: {_I} and {_I}",
    rf"unsupported operand type\(s\) for (pow\(\)|\*\* or pow\(\)): {_I} and {_I}",
    rf"'[<>]=?' not supported between instances of {_I} and {_I}",
    rf'can only concatenate (str|list|tuple) \(not "{IDENT}"\) to (str|list|tuple)',
    rf"bad operand type for unary [-+~]: {_I}", rf"unhashable type: {_I}",
    rf"can't multiply sequence by non-int of type {_I}", rf"argument of type {_I} is not iterable",
    rf"string indices must be integers(, not {_I})?", rf"(list|tuple) indices must be integers or slices, not {IDENT}",
    rf"{_F}\(\) takes (from )?{_N} (to {_N} )?positional arguments? but {_N} (was|were) given",
    rf"{_F}\(\) takes no arguments", rf"{_F}\(\) missing {_N} required (positional|keyword-only) arguments?: "
    rf"{_I}((, {_I})*,? and {_I})?",
    rf"{_F}\(\) got an unexpected keyword argument {_I}",
    rf"{_F}\(\) argument( {_N})? must be {_KINDS}, not {_I}",
    rf"{_F} expected (at most |at least )?{_N} arguments?, got {_N}",
    r"maximum recursion depth exceeded( in comparison| while calling a Python object| in __instancecheck__)?",
    r"math domain error", r"math range error", r"(int|float) too large to convert to (float|int)",
    r"cannot convert float (NaN|infinity) to integer",
    r"Exceeds the limit \(\d{1,6} digits\) for integer string conversion"  # never with "value has <n> digits": a
    r"(; use sys\.set_int_max_str_digits\(\) to increase the limit)?",  # count the program chose
    r"pop from (an )?empty (list|deque|set)", r"pop index out of range",
    r"list\.remove\(x\): x not in list", r"(min|max)\(\) (arg is an empty sequence|iterable argument is empty)",
    rf"not enough values to unpack \(expected {_N}, got {_N}\)",
    rf"too many values to unpack \(expected {_N}(, got {_N})?\)", r"substring not found",
    r"empty separator", r"generator already executing", r"dictionary changed size during iteration",
    r"Set changed size during iteration", r"index out of range", r"list assignment index out of range",
    rf"\[Errno \d{{1,3}}\] ({_ERRNO})(: '[A-Za-z0-9_.-]{{0,30}}')?",
    r"the program ended before it answered",
]
_STATEMENT = r"'(if|elif|else|for|while|with|try|except|except\*|finally|match|case)'"  # CPython's own words
_SYNTAX = re.compile(r"(invalid syntax|unexpected indent|unindent does not match any outer indentation "
                     r"level|expected an indented block( after (" + _STATEMENT + r" statement|function "
                     r"definition|class definition) on line \d{1,5})?|unterminated string literal \(detected at line "
                     r"\d{1,5}\)|'[(\[{]' was never closed|unmatched '[)\]}]'|invalid syntax\. Perhaps you forgot a "
                     r"comma\?|expected ':'|invalid decimal literal|unexpected EOF while "
                     r"parsing) \(<solution>, line \d{1,5}\)",
                     re.ASCII)  # a compile error of the program, at load only
OWN = re.compile("|".join(f"(?:{p})" for p in _OWN), re.ASCII)
_TYPE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,39}", re.ASCII)


def type_name(name: str, inputs: tuple = ()) -> str:
    """An exception type's name as a reason may say it: an identifier holding none of ``inputs`` (``_held``), else a
    plain phrase (a program can name a type after what it was called with)."""
    return name if _TYPE.fullmatch(name) and not _held(name, inputs) else "an exception of the program's own type"


def _held(text: str, inputs: tuple) -> bool:
    """Whether ``text`` holds one of ``inputs`` (``_flat``): a string or bytes of 3 characters or more, an integer of
    2 digits or more, a float written as Python writes it."""
    for x in _flat(inputs):
        shown = x.decode("utf-8", "replace") if isinstance(x, bytes) else x if isinstance(x, str) else repr(x)
        if len(shown) >= (2 if isinstance(x, int) else 3) and shown in text:
            return True
    return False


def _names_are_real(message: str) -> bool:
    """Whether every dotted name quoted in ``message`` starts with a module of the standard library (the only dotted
    names CPython's messages hold in the sandbox, e.g. ``xml.nothing``; a program's ``'www.example.com'`` does not)."""
    import sys

    return all(name.split(".")[0] in sys.stdlib_module_names for name in re.findall(r"'([^']*\.[^']*)'", message))


def kept_message(name: str, message: str, inputs: tuple = (), at_load: bool = False) -> str | None:
    """``message`` where it is CPython's own (a compile error's only ``at_load``) and no input of the failing call
    (``inputs``: a string of 3 characters or more, or an integer of 2 digits or more) is in it, else None (not kept)."""
    if not message:
        return ""
    compiled = at_load and name in ("SyntaxError", "IndentationError", "TabError") and _SYNTAX.fullmatch(message)
    if not (OWN.fullmatch(message) or compiled) or not _names_are_real(message) or _held(message, inputs):
        return None
    return message


def _flat(values, depth: int = 0):
    """The strings, bytes, integers and floats among ``values`` (lists, tuples, sets, dicts' keys and values, three
    levels deep)."""
    for v in values:
        if isinstance(v, (str, bytes, float)) or (isinstance(v, int) and not isinstance(v, bool)):
            yield v
        elif depth < 3 and isinstance(v, (list, tuple, set, frozenset)):
            yield from _flat(list(v), depth + 1)
        elif depth < 3 and isinstance(v, dict):
            yield from _flat([*v.keys(), *v.values()], depth + 1)


def reason(name: str, message: str, by_program: bool, inputs: tuple = (), at_load: bool = False) -> str:
    """A reason for an exception of type ``name`` with ``message``: raised by the program (in its own process; while
    it loads: ``at_load``), or on the harness's side (a hidden test's assertion says only that a hidden test failed)."""
    kind = type_name(name, inputs)
    if not by_program and name == "AssertionError":
        return "AssertionError: a hidden test failed"
    kept = kept_message(name, message, inputs, at_load)
    if kept is None:
        return f"{kind} (raised in the program's process; its message is not kept)" if by_program else \
            f"{kind} (in the hidden tests; its message is not kept)"
    return f"{kind}: {kept}" if kept else kind
