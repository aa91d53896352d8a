"""User input content (`UserInput` union) as sent in `turn/start` and echoed in `userMessage` items."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field
from typing_extensions import TypeAliasType

from tether_protocol.common import WireModel

ImageDetail = Literal["auto", "low", "high", "original"]


class ByteRange(WireModel):
    """Half-open byte span inside a text input."""

    start: int
    end: int


class TextElement(WireModel):
    """A UI element (e.g. a mention chip) embedded in a text input."""

    byte_range: ByteRange
    placeholder: str | None = None


class TextInput(WireModel):
    """Plain text; `text_elements` is snake_case on the wire."""

    type: Literal["text"] = "text"
    text: str
    text_elements: list[TextElement] = Field(default_factory=list, alias="text_elements")


class ImageInput(WireModel):
    """An image by data URL (`url`) or uploaded file id (`fileId`); exactly one is set."""

    type: Literal["image"] = "image"
    url: str | None = None
    file_id: str | None = None
    detail: ImageDetail | None = None


class LocalImageInput(WireModel):
    """An image read from a local absolute path."""

    type: Literal["localImage"] = "localImage"
    path: str
    detail: ImageDetail | None = None


class AudioInput(WireModel):
    """Audio by URL or uploaded file id."""

    type: Literal["audio"] = "audio"
    url: str | None = None
    file_id: str | None = None


class LocalAudioInput(WireModel):
    """Audio read from a local absolute path."""

    type: Literal["localAudio"] = "localAudio"
    path: str


class SkillInput(WireModel):
    """A reference to a skill."""

    type: Literal["skill"] = "skill"
    name: str
    path: str


class MentionInput(WireModel):
    """A mention of a file or resource."""

    type: Literal["mention"] = "mention"
    name: str
    path: str


UserInput = TypeAliasType(
    "UserInput",
    Annotated[
        TextInput | ImageInput | LocalImageInput | AudioInput | LocalAudioInput | SkillInput | MentionInput,
        Field(discriminator="type"),
    ],
)
