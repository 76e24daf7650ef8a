"""A record's data flattened into leaves by their data path, for comparing two versions
(proofdrift.py). A list whose items are mappings each with its own ``name`` (a list of
libraries, of ops) is addressed item by item by name, not by position:
``LIBRARIES.files[libc10.so].bytes`` is the same library in both versions wherever the list
puts it."""

from __future__ import annotations

from dataclasses import dataclass, field

NAMED_BY = ("name",)  # the field that names the items of a list, for matching them across versions


def item_names(items: list) -> list[str] | None:
    """What names each item of ``items``: every item a mapping with a non-empty string ``name``;
    two items of one name (a file in two folders) are told apart by the first other text field
    that differs (``driver.so folder=cuda/bindings``). None when the items are not all named that
    way: such a list is compared by position."""
    if not items or not all(isinstance(item, dict) for item in items):
        return None
    for field_name in NAMED_BY:
        names = [item.get(field_name) for item in items]
        if not all(isinstance(n, str) and n for n in names):
            continue
        labels = list(names)
        for index, item in enumerate(items):
            twins = [other for other in items if other.get(field_name) == item[field_name]]
            if len(twins) == 1:
                continue
            for other_field in sorted(k for k, v in item.items() if k != field_name and isinstance(v, str)):
                if [twin.get(other_field) for twin in twins].count(item[other_field]) == 1:
                    labels[index] = f"{item[field_name]} {other_field}={item[other_field]}"
                    break
        if len(set(labels)) == len(labels):
            return labels
    return None


@dataclass
class Leaves:
    """A record's data as leaves by their data path, with named list items addressed by name."""

    values: dict[str, object] = field(default_factory=dict)   # path -> scalar
    position: dict[str, str] = field(default_factory=dict)    # path -> the positional path (SWEEP.0.us)
    items: dict[str, dict] = field(default_factory=dict)      # path of a named item -> the item


def leaves(value, path: str = "", position: str = "", out: Leaves | None = None) -> Leaves:
    """Every leaf of ``value`` as :func:`build_hooks.proofs.datalines.flatten` gives it, except
    that an item of a list of named mappings is ``LIST[name]``, not ``LIST.<index>``."""
    out = out if out is not None else Leaves()
    if isinstance(value, dict):
        for key, item in value.items():
            leaves(item, f"{path}.{key}" if path else str(key), f"{position}.{key}" if position else str(key), out)
    elif isinstance(value, list):
        named = item_names(value)
        for index, item in enumerate(value):
            here = f"{path}[{named[index]}]" if named else f"{path}.{index}"
            if named:
                out.items[here] = item
            leaves(item, here, f"{position}.{index}", out)
    else:
        out.values[path] = value
        out.position[path] = position
    return out
