"""The method table's desktop-app part beyond sections: thread attachments, approving an action
the automatic reviewer denied. `methods.CLIENT_METHODS` takes every spec of this module too."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether_protocol.lazy_models import models
from tether_protocol.spec import MethodSpec

# The models load on first use (lazy_models); mypy reads the real modules.
if TYPE_CHECKING:
    from tether_protocol.v2 import thread_desktop as td
else:
    td = models("tether_protocol.v2.thread_desktop")

_T = "thread_id"

THREAD_ATTACHMENT_ADD = MethodSpec(
    "thread/attachment/add",
    td.ThreadAttachmentAddParams,
    td.ThreadAttachmentAddResponse,
    scope=_T,
    doc="Attach a payload to a thread under (type, identity key), or find the one already there.",
)
THREAD_ATTACHMENT_LIST = MethodSpec(
    "thread/attachment/list",
    td.ThreadAttachmentListParams,
    td.ThreadAttachmentListResponse,
    doc="A thread's attachments, oldest first (paged).",
)
THREAD_ATTACHMENT_REMOVE = MethodSpec(
    "thread/attachment/remove",
    td.ThreadAttachmentRemoveParams,
    td.ThreadAttachmentRemoveResponse,
    scope=_T,
    doc="Remove a thread's attachment by (type, identity key).",
)
THREAD_ATTACHMENT_OWNER_LIST = MethodSpec(
    "thread/attachmentOwner/list",
    td.ThreadAttachmentOwnerListParams,
    td.ThreadAttachmentOwnerListResponse,
    doc="The threads holding an attachment of one (type, identity key), by thread id (paged).",
)
THREAD_APPROVE_GUARDIAN_DENIED_ACTION = MethodSpec(
    "thread/approveGuardianDeniedAction",
    td.ThreadApproveGuardianDeniedActionParams,
    td.ThreadApproveGuardianDeniedActionResponse,
    scope=_T,
    doc="Tell the model the user approved an action the automatic reviewer denied.",
)
