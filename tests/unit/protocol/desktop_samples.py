"""Reference samples of the desktop-app thread methods beyond sections: attachments, approving
an action the reviewer denied, queued follow-up messages."""

from __future__ import annotations

from tests.unit.protocol import wire_samples as s

from tether_protocol.common import WireModel
from tether_protocol.v2 import project as pj
from tether_protocol.v2 import thread_desktop as td

ATTACHMENT_ID = "01a232f8-92f5-7672-a422-03ec35425ea5"
QUEUED_ID = "01a232f8-92f5-7672-a422-03ec35425ea6"


def desktop_samples() -> list[tuple[str, WireModel]]:
    """(reference definition name, instance) for each model of `thread_desktop`."""
    attachment = td.ThreadAttachment(
        id=ATTACHMENT_ID, attachment_type="pr", identity_key="github/1", payload={"n": 1}, created_at=1
    )
    owner = td.ThreadAttachmentOwner(thread_id=s.THREAD_ID, archived=False)
    queued = td.QueuedSubmission(
        id=QUEUED_ID, input=[s.TEXT], client_user_message_id="c1", responsesapi_client_metadata={"k": "v"}
    )
    event = {"id": "r1", "status": "denied", "action": {"type": "command", "command": "ls"}}
    t = s.THREAD_ID
    return [
        ("ThreadAttachment", attachment),
        (
            "ThreadAttachmentAddParams",
            td.ThreadAttachmentAddParams(thread_id=t, attachment_type="pr", identity_key="k", payload=None),
        ),
        (
            "ThreadAttachmentAddResponse",
            td.ThreadAttachmentAddResponse(attachment=attachment, outcome="existing"),
        ),
        ("ThreadAttachmentListParams", td.ThreadAttachmentListParams(thread_id=t, limit=1, cursor="c")),
        ("ThreadAttachmentListResponse", td.ThreadAttachmentListResponse(data=[attachment], next_cursor="c")),
        (
            "ThreadAttachmentRemoveParams",
            td.ThreadAttachmentRemoveParams(thread_id=t, attachment_type="pr", identity_key="k"),
        ),
        ("ThreadAttachmentRemoveResponse", td.ThreadAttachmentRemoveResponse()),
        ("ThreadAttachmentOwner", owner),
        (
            "ThreadAttachmentOwnerListParams",
            td.ThreadAttachmentOwnerListParams(attachment_type="pr", identity_key="k", archived=None),
        ),
        ("ThreadAttachmentOwnerListResponse", td.ThreadAttachmentOwnerListResponse(data=[owner])),
        (
            "ThreadAttachmentUpdatedNotification",
            td.ThreadAttachmentUpdatedNotification(
                thread_id=t,
                attachment_type="pr",
                identity_key="k",
                attachment_id=ATTACHMENT_ID,
                operation="deleted",
            ),
        ),
        (
            "ThreadApproveGuardianDeniedActionParams",
            td.ThreadApproveGuardianDeniedActionParams(thread_id=t, event=event),
        ),
        ("ThreadApproveGuardianDeniedActionResponse", td.ThreadApproveGuardianDeniedActionResponse()),
        ("QueuedSubmission", queued),
        (
            "ThreadQueueAddParams",
            td.ThreadQueueAddParams(thread_id=t, client_user_message_id="c1", input=[s.TEXT]),
        ),
        ("ThreadQueueAddResponse", td.ThreadQueueAddResponse(queued_submission=queued)),
        ("ThreadQueueListParams", td.ThreadQueueListParams(thread_id=t, cursor="1", limit=1)),
        ("ThreadQueueListResponse", td.ThreadQueueListResponse(data=[queued], next_cursor="1")),
        (
            "ThreadQueueUpdateParams",
            td.ThreadQueueUpdateParams(thread_id=t, queued_submission_id=QUEUED_ID, input=[s.TEXT]),
        ),
        ("ThreadQueueUpdateResponse", td.ThreadQueueUpdateResponse(queued_submission=queued)),
        ("ThreadQueueDeleteParams", td.ThreadQueueDeleteParams(thread_id=t, queued_submission_id=QUEUED_ID)),
        ("ThreadQueueDeleteResponse", td.ThreadQueueDeleteResponse(deleted=True)),
        (
            "ThreadQueueReorderParams",
            td.ThreadQueueReorderParams(thread_id=t, queued_submission_ids=[QUEUED_ID]),
        ),
        ("ThreadQueueReorderResponse", td.ThreadQueueReorderResponse()),
        ("ThreadQueueStartParams", td.ThreadQueueStartParams(thread_id=t, queued_submission_id=None)),
        ("ThreadQueueStartResponse", td.ThreadQueueStartResponse(turn=s.TURN)),
        ("ThreadQueueChangedNotification", td.ThreadQueueChangedNotification(thread_id=t)),
        *project_samples(),
    ]


def project_samples() -> list[tuple[str, WireModel]]:
    """(reference definition name, instance) for each model of `project`."""
    root = pj.ProjectRoot(path="/work/project")
    project = pj.Project(
        id=QUEUED_ID, name="P", roots=[root], metadata={"k": "v"}, position=0, created_at=1, updated_at=1
    )
    return [
        ("ProjectRoot", root),
        ("Project", project),
        ("ProjectListParams", pj.ProjectListParams(sort_key="recencyAt", sort_direction="desc", limit=1)),
        ("ProjectListResponse", pj.ProjectListResponse(data=[project], next_cursor="0|x")),
        ("ProjectReadParams", pj.ProjectReadParams(project_id=QUEUED_ID)),
        ("ProjectReadResponse", pj.ProjectReadResponse(project=project)),
        ("ProjectCreateParams", pj.ProjectCreateParams(idempotency_key="k", name="P", roots=[root])),
        ("ProjectCreateResponse", pj.ProjectCreateResponse(project=project)),
        (
            "ProjectImportParams",
            pj.ProjectImportParams(idempotency_key="k", name="P", roots=[], threads=[s.THREAD_ID]),
        ),
        ("ProjectImportResponse", pj.ProjectImportResponse(project=project)),
        ("ProjectUpdateParams", pj.ProjectUpdateParams(project_id=QUEUED_ID, name="Q")),
        ("ProjectUpdateResponse", pj.ProjectUpdateResponse(project=project)),
        ("ProjectMoveParams", pj.ProjectMoveParams(project_id=QUEUED_ID, before_project_id=None)),
        ("ProjectMoveResponse", pj.ProjectMoveResponse()),
        ("ProjectDeleteParams", pj.ProjectDeleteParams(project_id=QUEUED_ID)),
        ("ProjectDeleteResponse", pj.ProjectDeleteResponse()),
        (
            "ProjectChangedNotification",
            pj.ProjectChangedNotification(project_id=QUEUED_ID, change_type="created"),
        ),
        (
            "ThreadProjectUpdatedNotification",
            pj.ThreadProjectUpdatedNotification(thread_id=s.THREAD_ID, project_id=None),
        ),
    ]
