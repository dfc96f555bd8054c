"""PDFium functions re-declared for the parser's hot loops.

pypdfium2's bindings declare typed handles (pointers to opaque structs) and typed
out-parameters, and ctypes checks and converts each of them on every call: for the small
queries the parser makes hundreds of times a page (a rectangle, a font size, an object's
type) that costs more than PDFium's own work. Re-declared, a function takes handles as plain
addresses (``c_void_p``), or, declared without argument types at all, takes what it is given
as is: a ``handle`` value, ``byref`` out-parameters into buffers allocated once, and Python
ints (passed as C ints, so only for int parameters). That halves the cost of a call.
"""

from __future__ import annotations

import ctypes
from typing import Any


def declared(function: Any, restype: Any, *argtypes: Any) -> Any:
    """``function`` (a pypdfium2.raw function) declared anew: with ``argtypes`` when given,
    else without argument types."""
    address = ctypes.cast(function, ctypes.c_void_p).value
    assert address is not None  # a bound library function
    prototype: Any = ctypes.CFUNCTYPE(restype, *argtypes)(address)
    if not argtypes:
        prototype.argtypes = None
    return prototype


def handle(typed: Any) -> ctypes.c_void_p:
    """A pypdfium2 typed handle (a page, a text page...) as a plain pointer, for untyped
    calls (a Python int would go out as a 32-bit C int)."""
    return ctypes.cast(typed, ctypes.c_void_p)
