"""Checkpoint serialisation: LangGraph's own msgpack encoding, zlib-compressed when it pays.

Tool outputs and checkpoint bookkeeping are repetitive text; compressing blobs over
`COMPRESS_FROM_BYTES` keeps the store near the size of the transcript itself.  Small
blobs stay as they are, so reading them costs nothing extra.
"""

from __future__ import annotations

import zlib
from typing import Any

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

COMPRESS_FROM_BYTES = 512
SUFFIX = "+zlib"


class CompressingSerializer(JsonPlusSerializer):
    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        type_, data = super().dumps_typed(obj)
        if len(data) < COMPRESS_FROM_BYTES:
            return type_, data
        packed = zlib.compress(data, 6)
        return (type_ + SUFFIX, packed) if len(packed) < len(data) else (type_, data)

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        type_, payload = data
        if type_.endswith(SUFFIX):
            return super().loads_typed((type_.removesuffix(SUFFIX), zlib.decompress(payload)))
        return super().loads_typed(data)
