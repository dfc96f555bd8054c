"""Reading SLUICE_* variables for ``Settings.from_env``: the variable each setting is read
from, its raw value in any mapping, one-line error messages naming
it, and the refusal of a SLUICE_* variable that is no setting at all (a typo, most likely)."""

from __future__ import annotations

import difflib
from collections.abc import Collection, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

PREFIX = "SLUICE_"
# Read by other programs than the server processes, so not unknown: the CLI's target, API
# key and TLS files, and the docreader's LibreOffice profile pool.
VARIABLES_READ_ELSEWHERE = frozenset(
    {
        "SLUICE_TARGET",
        "SLUICE_API_KEY",
        "SLUICE_TLS",
        "SLUICE_CA_FILE",
        "SLUICE_CERT_FILE",
        "SLUICE_KEY_FILE",
        "SLUICE_DOCREADER_LO_PROFILES",
    }
)


def variable_of(model: type[BaseModel], field_name: str) -> str:
    alias = model.model_fields[field_name].validation_alias
    return alias if isinstance(alias, str) else f"{PREFIX}{field_name.upper()}"


def read_environment(
    model: type[BaseModel], environ: Mapping[str, str], fields: Collection[str]
) -> dict[str, Any]:
    """The raw values ``environ`` sets for ``fields`` of ``model``, keyed by field name.
    Names are matched in any case, and an empty value is no value (the default stays)."""
    by_variable = {variable_of(model, name).lower(): name for name in fields}
    values: dict[str, Any] = {}
    for key, value in environ.items():
        name = by_variable.get(key.lower())
        if name is not None and value != "":
            values[name] = value
    return values


def unknown_variables(environ: Mapping[str, str], known: Collection[str]) -> str | None:
    """One line naming each SLUICE_* variable that no setting reads, with the known name it
    is closest to; None when there is none. A typo would otherwise leave a default on
    silently, so the process refuses to start."""
    candidates = sorted({*known, *VARIABLES_READ_ELSEWHERE})
    problems = []
    for name in sorted(environ):
        upper = name.upper()
        if not upper.startswith(PREFIX) or upper in candidates:
            continue
        # Compared without the prefix every name shares, which would make any two close.
        close = difflib.get_close_matches(
            upper.removeprefix(PREFIX), [c.removeprefix(PREFIX) for c in candidates], n=1
        )
        hint = f"; did you mean {PREFIX}{close[0]}?" if close else ""
        problems.append(f"{name} is not a Sluice setting{hint}")
    return "; ".join(problems) or None


_PHRASES = {
    "int_parsing": "must be an integer",
    "int_from_float": "must be an integer",
    "float_parsing": "must be a number",
    "finite_number": "must be a finite number",
    "greater_than": "must be > {gt}",
    "greater_than_equal": "must be >= {ge}",
    "less_than_equal": "must be <= {le}",
    "literal_error": "must be {expected}",
    "string_too_short": "must not be empty",
}


def describe(
    exc: ValidationError,
    settings_cls: type[BaseModel],
    groups: Mapping[str, type[BaseModel]],
    from_flags: Collection[str],
) -> str:
    """One line for all of ``exc``'s errors, each naming the variable (or, for a value given
    on the command line, the setting) it is about."""
    return "; ".join(
        _describe_one(error, settings_cls, groups, from_flags) for error in exc.errors()
    )


def _describe_one(
    error: Any,
    settings_cls: type[BaseModel],
    groups: Mapping[str, type[BaseModel]],
    from_flags: Collection[str],
) -> str:
    context = error.get("ctx") or {}
    detail = str(context["error"]) if error["type"] == "value_error" else None
    loc = tuple(str(part) for part in error["loc"])
    model = settings_cls
    if loc and loc[0] in groups:
        model, loc = groups[loc[0]], loc[1:]
    if not loc:
        # A check across settings (of a group or of all): its message names the variables.
        return detail or str(error["msg"])
    field = loc[0]
    if field in from_flags:
        name = f"{field} (command line)"
    elif field in model.model_fields:
        name = variable_of(model, field)
    else:
        # An aliased field is reported by its alias: the variable itself.
        name = field
    if detail is not None:
        return f"{name} {detail}" if detail.startswith("must") else f"{name}: {detail}"
    phrase = _PHRASES.get(error["type"])
    # Bounds as written: pydantic hands a float field's "gt=0" over as 0.0.
    bounds = {
        key: int(value) if isinstance(value, float) and value.is_integer() else value
        for key, value in context.items()
    }
    text = phrase.format(**bounds) if phrase else str(error["msg"]).lower()
    return f"{name} {text}, not {error['input']!r}"
