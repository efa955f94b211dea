"""Frozen settings objects, checked once from a table of constraints.

A settings class declares, for each field, the constraint its value must meet (a callable that
returns the value in its normal form or raises a ``ValueError``/``TypeError`` naming the
parameter), in the manner of scikit-learn's ``_parameter_constraints``; rules that tie fields
together go in :meth:`Settings._check_together`. Construction checks every field once; a
checked object then plans its release without checking again.
"""

from __future__ import annotations

import contextvars
import dataclasses
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from types import MappingProxyType
from typing import Any, ClassVar, Self

from dppca._validation import (
    check_bool,
    check_choices,
    check_option,
    check_positive_int,
    check_real,
)

#: A field's constraint: ``check(value, name)`` gives the value in normal form or raises.
Constraint = Callable[[Any, str], Any]

#: The caller's names for the fields of the settings being built (see :meth:`Settings.named`).
_CALLER_NAMES: contextvars.ContextVar[Mapping[str, str]] = contextvars.ContextVar(
    "caller_names", default=MappingProxyType({})
)


def one_of(*options: str) -> Constraint:
    """One of the string ``options``."""
    return lambda value, name: check_option(value, name, options)


def some_of(*options: str) -> Constraint:
    """One of the string ``options`` or a sequence of distinct ones (kept as given)."""

    def check(value: Any, name: str) -> Any:
        chosen = check_choices(value, name, options)
        return value if isinstance(value, str) else chosen

    return check


def boolean(value: Any, name: str) -> bool:
    """True or False."""
    return check_bool(value, name)


def positive_int(value: Any, name: str) -> int:
    """A positive integer."""
    return check_positive_int(value, name)


def real(low: float, high: float | None = None, *, low_inclusive: bool = False) -> Constraint:
    """A finite real number above ``low`` (or at it) and up to ``high``."""
    return lambda value, name: check_real(
        value, name, low=low, high=high, low_inclusive=low_inclusive
    )


def optional(constraint: Constraint) -> Constraint:
    """None, or a value that meets ``constraint``."""
    return lambda value, name: None if value is None else constraint(value, name)


def anything(value: Any, name: str) -> Any:
    """Any value (checked with the other fields, or by the release that uses it)."""
    return value


@dataclasses.dataclass(frozen=True)
class Settings:
    """Base of the frozen settings objects: every field checked once, at construction, from
    :attr:`constraints`, then :meth:`_check_together`; errors name the field (or the caller's
    name for it, :meth:`named`)."""

    #: Each field's constraint, in the order they are checked.
    constraints: ClassVar[Mapping[str, Constraint]] = {}
    #: The settings as given (see :meth:`given`).
    _given: dict[str, Any] = dataclasses.field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    #: The caller's names of the fields, for the checks that need the data's size.
    _names: dict[str, str] = dataclasses.field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        names = _CALLER_NAMES.get()
        for field, check in self.constraints.items():
            value = check(getattr(self, field), names.get(field, field))
            object.__setattr__(self, field, value)
        # What was asked for, checked, before the rules that tie fields together resolve it.
        object.__setattr__(self, "_given", {name: getattr(self, name) for name in self.fields()})
        object.__setattr__(self, "_names", dict(names))
        self._check_together(names)

    def name_of(self, field: str) -> str:
        """The caller's name of ``field`` (its own name by default)."""
        return self._names.get(field, field)

    @classmethod
    def fields(cls) -> list[str]:
        """The names of the settings a caller gives."""
        return [field.name for field in dataclasses.fields(cls) if field.init]

    def given(self) -> dict[str, Any]:
        """The settings as given (checked, not resolved: ``None`` stays ``None``), from which
        :meth:`replace` and the moved keywords build new settings."""
        return dict(self._given)

    def _check_together(self, names: Mapping[str, str]) -> None:
        """Rules that tie fields together (none by default); ``names`` maps a field to the
        caller's name for it."""

    @classmethod
    def named(cls, names: Mapping[str, str], **values: Any) -> Self:
        """The settings of ``values``, whose errors call each field by the caller's name in
        ``names`` (``{"method": "scree"}`` for :func:`~dppca.dp_pca`'s ``scree="..."``)."""
        with _caller_names(names):
            return cls(**values)

    @classmethod
    def coerce(cls, value: Any, parameter: str, lead: str, names: Mapping[str, str]) -> Self:
        """``value`` as settings: the object itself, a mapping of its fields (errors call a field
        ``parameter['field']``), or a value of its ``lead`` field (a string such as ``"huber"``,
        errors call it ``parameter``); ``names`` overrides the names of errors."""
        if isinstance(value, cls):
            return value
        if isinstance(value, Mapping):
            allowed = cls.fields()
            unknown = sorted(set(value) - set(allowed))
            if unknown:
                raise ValueError(f"Unknown {parameter} setting(s) {unknown}; allowed: {allowed}.")
            keyed = {field: f"{parameter}[{field!r}]" for field in allowed}
            return cls.named({**keyed, **names}, **value)
        return cls.named({lead: parameter, **names}, **{lead: value})

    def to_dict(self) -> dict[str, Any]:
        """The settings as given (as :meth:`coerce` takes them back)."""
        return self.given()

    def replace(self, **changes: Any) -> Self:
        """New settings: these as given, with ``changes``, checked again."""
        return type(self)(**{**self.given(), **changes})


@contextmanager
def _caller_names(names: Mapping[str, str]) -> Iterator[None]:
    token = _CALLER_NAMES.set(names)
    try:
        yield
    finally:
        _CALLER_NAMES.reset(token)
