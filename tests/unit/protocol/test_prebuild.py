"""Building the shared wire models first changes no byte on the wire."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tether_protocol.common import WireModel
from tether_protocol.prebuild import shared_blocks
from tether_protocol.v2 import items

ROOT = Path(__file__).resolve().parents[3]

# Every reference sample (one or more of each wire model), dumped and then read back and dumped
# again, in a fresh interpreter: the first models built there decide what later ones reuse.
_DUMP_SAMPLES = """
import sys
import orjson
if sys.argv[1] == "prebuilt":
    from tether_protocol.prebuild import build_shared
    build_shared()
from tests.unit.protocol.reference_samples import REFERENCE_SAMPLES
out = []
for name, sample in REFERENCE_SAMPLES:
    wire = sample.wire()
    out.append([name, wire, type(sample).model_validate(wire).wire()])
sys.stdout.buffer.write(orjson.dumps(out, option=orjson.OPT_SORT_KEYS))
"""


def _dump(mode: str) -> bytes:
    return subprocess.run(
        [sys.executable, "-c", _DUMP_SAMPLES, mode], cwd=ROOT, capture_output=True, check=True, timeout=120
    ).stdout


def test_prebuilt_models_put_the_same_json_on_the_wire() -> None:
    prebuilt, lazy = _dump("prebuilt"), _dump("lazy")
    assert len(prebuilt) > 10_000
    assert prebuilt == lazy


def test_every_thread_item_type_is_a_shared_block() -> None:
    blocks = shared_blocks()
    members = [m for m in vars(items).values() if isinstance(m, type) and issubclass(m, items.ItemBase)]
    assert {m for m in members if m is not items.ItemBase} <= set(blocks)
    # Leaves first: a block comes after every block it contains.
    for later, model in enumerate(blocks):
        for field in model.model_fields.values():
            for inner in blocks[later:]:
                if inner is not model and isinstance(inner, type) and issubclass(inner, WireModel):
                    named = re.search(rf"\b{inner.__name__}\b", repr(field.annotation))
                    assert named is None, f"{model.__name__} contains {inner.__name__}, built after it"
