"""Build the wire types that many methods share, before the methods that contain them.

`WireModel` builds a model's validator and serializer on first use (`defer_build`). A model built
first generates every nested model that is not built yet inline, instead of reusing it. So each
method whose params or result hold a `Thread` or a `Turn` generated the whole item union again:
20 to 40 ms for each of a dozen thread and turn methods, about 250 ms over them. Building the shared
blocks once, leaves before whatever contains them, costs about 40 ms. Every method built after
that reuses them and costs 1 to 4 ms.
"""

from __future__ import annotations

import typing

from typing_extensions import TypeAliasType

from tether_protocol.common import WireModel


def shared_blocks() -> list[type[WireModel]]:
    """The shared models, each after the models it contains."""
    from tether_protocol.v2 import inputs, items, sandbox, thread, turn

    return [
        *_members(inputs.UserInput),
        *_members(sandbox.SandboxPolicy),
        *_members(items.ThreadItem),
        turn.Turn,
        thread.Thread,
    ]


def build_shared() -> None:
    """Build the validators and serializers of `shared_blocks()` now (idempotent)."""
    for model in shared_blocks():
        model.model_rebuild()


def _members(alias: TypeAliasType) -> list[type[WireModel]]:
    """The model classes of a discriminated-union alias (`Annotated[A | B | …, Field(…)]`)."""
    union: object = alias.__value__
    if typing.get_origin(union) is typing.Annotated:
        union = typing.get_args(union)[0]
    return [arg for arg in typing.get_args(union) if isinstance(arg, type) and issubclass(arg, WireModel)]
