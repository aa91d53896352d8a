"""The crash battery's thread goals: beside each turn a client sets the thread's goal to a new
objective (paused, so that it starts no turns of its own). After a kill, the stored goal is that of
the last answered set or of a later one (the daemon may have written a set whose answer the kill
swallowed), never an older one, and it is whole: every member Codex reports, of the right kind."""

from __future__ import annotations

from tests.support.rpcclient import RpcClient


class GoalSets:
    def __init__(self) -> None:
        self.objectives: list[str] = []  # in the order the sets were asked
        self.last_answered = -1  # index in `objectives` of the last answered set

    async def step(self, client: RpcClient, thread_id: str, n: int) -> None:
        index = len(self.objectives)
        objective = f"chaos goal {n}"
        self.objectives.append(objective)
        params = {"threadId": thread_id, "objective": objective, "status": "paused", "tokenBudget": 1000 + n}
        await client.request("thread/goal/set", params)
        self.last_answered = max(self.last_answered, index)

    async def check(self, client: RpcClient, thread_id: str) -> None:
        goal = (await client.request("thread/goal/get", {"threadId": thread_id}))["goal"]
        if self.last_answered < 0:
            return
        assert goal is not None, "an answered goal was lost"
        later = self.objectives[self.last_answered :]
        assert goal["objective"] in later, f"the goal went back to an older objective: {goal['objective']}"
        n = int(goal["objective"].rsplit(" ", 1)[1])
        assert (goal["status"], goal["tokenBudget"], goal["threadId"]) == ("paused", 1000 + n, thread_id)
        assert all(
            isinstance(goal[k], int) for k in ("tokensUsed", "timeUsedSeconds", "createdAt", "updatedAt")
        )
