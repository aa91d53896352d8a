"""Exec policy rules: parsing `prefix_rule` files safely, matching, and the command decision."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether_server.core import safety
from tether_server.core.execpolicy import ExecPolicy, ExecRules, RulesError, load_policy, parse_rules

READ_ONLY = {"type": "readOnly", "networkAccess": False}
RULES = """
# Comments and docstrings are fine.
prefix_rule(pattern=["git", ["push", "fetch"]], decision="prompt", justification="talks to the network",
            match=[["git", "push", "origin"], "git fetch --all"], not_match=["git status"])
prefix_rule(pattern=["rm", "-rf"], decision="forbidden", justification="never delete trees")
prefix_rule(pattern=["cargo", "build"])
prefix_rule(pattern=["git"], decision="allow")
host_executable(name="git", paths=["/usr/bin/git"])
"""


def _policy(text: str = RULES) -> ExecPolicy:
    return ExecPolicy(tuple(parse_rules(text)))


def _assess(script: str, approval: object = "on-request", rules: str = RULES) -> safety.CommandDecision:
    argv = ["/bin/bash", "-lc", script]
    return safety.assess_command(approval, READ_ONLY, script, False, rules=_policy(rules), argv=argv)


def test_a_rule_matches_argv_that_starts_with_its_tokens_or_alternatives() -> None:
    policy = _policy()
    assert [r.decision for r in policy.matching(["git", "push", "origin"])] == ["prompt", "allow"]
    assert policy.matching(["cargo", "test"]) == []
    assert policy.matching(["gi"]) == []


def test_the_strictest_matching_decision_wins() -> None:
    policy = _policy()
    decided = policy.decide(["git", "fetch"])
    assert decided is not None and decided.decision == "prompt"
    assert decided.justification == "talks to the network"
    allowed = policy.decide(["git", "status"])
    assert allowed is not None and allowed.decision == "allow"
    forbidding = policy.decide(["rm", "-rf", "/"])
    assert forbidding is not None and forbidding.decision == "forbidden"


def test_the_decision_defaults_to_allow() -> None:
    (rule,) = parse_rules('prefix_rule(pattern=["make"])')
    assert rule.decision == "allow"


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("import os", "only prefix_rule"),
        ("x = 1", "only prefix_rule"),
        ('exec("print(1)")', "unknown function exec"),
        ('__import__("os").system("true")', "unknown function"),
        ("prefix_rule(pattern=[open('/etc/passwd').read()])", "literals"),
        ("prefix_rule(pattern=[])", "non-empty list"),
        ("prefix_rule(pattern=[1])", "string or a list of strings"),
        ('prefix_rule(pattern=["a"], decision="deny")', "decision must be"),
        ('prefix_rule(pattern=["a"], colour="red")', "unexpected argument"),
        ('prefix_rule(pattern=["a"], match=["b"])', "does not match"),
        ('prefix_rule(pattern=["a"], not_match=["a b"])', "matches the rule"),
        ("prefix_rule(pattern=['a'],", "syntax error"),
    ],
)
def test_anything_but_literal_rule_calls_is_refused_without_running_it(text: str, complaint: str) -> None:
    with pytest.raises(RulesError, match=complaint) as error:
        parse_rules(text, "x.rules")
    assert str(error.value).startswith("x.rules:")


def test_rule_files_are_read_in_name_order_and_only_with_the_rules_suffix(tmp_path: Path) -> None:
    (tmp_path / "b.rules").write_text('prefix_rule(pattern=["b"])\n')
    (tmp_path / "a.rules").write_text('prefix_rule(pattern=["a"], decision="prompt")\n')
    (tmp_path / "notes.txt").write_text("not rules at all\n")
    policy = load_policy(tmp_path)
    assert [sorted(r.pattern[0])[0] for r in policy.rules] == ["a", "b"]


def test_an_invalid_file_empties_the_policy_and_a_fix_is_picked_up(tmp_path: Path) -> None:
    rules = ExecRules(tmp_path)
    bad = tmp_path / "default.rules"
    bad.write_text("prefix_rule(pattern=[")
    assert rules.policy().rules == ()
    bad.write_text('prefix_rule(pattern=["ls"], decision="forbidden")\n')
    assert [r.decision for r in rules.policy().rules] == ["forbidden"]


def test_an_amendment_appends_an_allow_rule_that_parses_back(tmp_path: Path) -> None:
    rules = ExecRules(tmp_path / "rules")
    rules.allow_prefix(["touch", 'we"ird name'])
    rules.allow_prefix(["ls"])
    text = (tmp_path / "rules" / "default.rules").read_text()
    assert text.startswith('prefix_rule(pattern=["touch", "we\\"ird name"], decision="allow")\n')
    policy = rules.policy()
    assert policy.decide(["touch", 'we"ird name', "more"]) is not None
    assert policy.decide(["ls", "-l"]) is not None
    with pytest.raises(RulesError):
        rules.allow_prefix([])


def test_a_forbidden_command_is_rejected_with_its_justification() -> None:
    decision = _assess("rm -rf build")
    assert decision.verdict == "reject"
    assert decision.reason == "`rm -rf build` rejected: never delete trees"
    bare = _assess("ls && rm -rf x", rules='prefix_rule(pattern=["rm"], decision="forbidden")')
    assert bare.reason == "`ls && rm -rf x` rejected: blocked by policy"


def test_a_prompt_rule_asks_unless_approvals_are_off() -> None:
    asked = _assess("git push origin")
    assert (asked.verdict, asked.sandboxed) == ("prompt", True)
    assert asked.reason == "`git push origin` requires approval: talks to the network"
    refused = _assess("git push origin", approval="never")
    assert refused.verdict == "reject"
    assert refused.reason == "approval required by policy, but AskForApproval is set to Never"
    granular = {"granular": {"sandbox_approval": True, "rules": False, "mcp_elicitations": True}}
    assert _assess("git push", approval=granular).verdict == "reject"


def test_only_commands_every_part_of_which_is_allowed_skip_the_sandbox() -> None:
    assert _assess("git status && cargo build") == safety.CommandDecision("allow", False)
    mixed = _assess("git status && touch x")
    assert (mixed.verdict, mixed.sandboxed) == ("allow", True)
    assert _assess("touch x", approval="untrusted").verdict == "prompt"
    assert _assess("git status && cargo build", approval="untrusted").verdict == "allow"


def test_a_prompt_proposes_the_first_command_needing_approval_as_the_amendment() -> None:
    decision = safety.assess_command(
        "untrusted", READ_ONLY, "ls && touch a.txt", False, rules=ExecPolicy(), argv=["bash", "-lc", "x"]
    )
    assert decision.amendment == ("touch", "a.txt")
    script = "echo hi > out.txt"
    argv = ["/bin/bash", "-lc", script]
    complex_script = safety.assess_command("on-request", READ_ONLY, script, True, rules=None, argv=argv)
    assert complex_script.amendment == tuple(argv)


def test_the_models_prefix_rule_is_proposed_when_it_fits_and_is_not_an_interpreter() -> None:
    def proposed(prefix: object, script: str = "touch a.txt") -> tuple[str, ...] | None:
        return safety.assess_command(
            "untrusted", READ_ONLY, script, False, argv=["bash", "-lc", script], requested_prefix=prefix
        ).amendment

    assert proposed(["touch"]) == ("touch",)
    assert proposed(["mkdir"]) == ("touch", "a.txt")
    assert proposed(["python3"], "python3 x.py") == ("python3", "x.py")
    assert proposed("touch") == ("touch", "a.txt")


def _under(
    shell: str, script: str, rules: str = RULES, approval: object = "on-request"
) -> safety.CommandDecision:
    argv = [shell, "-c", script]
    return safety.assess_command(
        approval, READ_ONLY, script, False, rules=_policy(rules), argv=argv, usual_shell=False
    )


def test_under_another_shell_an_allow_rule_for_the_script_allows_nothing() -> None:
    assert _assess("git status") == safety.CommandDecision("allow", False)
    other = _under("/usr/bin/dash", "git status")
    assert (other.verdict, other.sandboxed) == ("allow", True)  # the heuristics: sandboxed
    untrusted = _under("/usr/bin/dash", "cargo build", approval="untrusted")
    assert untrusted.verdict == "prompt"
    assert untrusted.amendment == ("/usr/bin/dash", "-c", "cargo build")


def test_under_another_shell_forbidden_and_prompt_rules_still_apply() -> None:
    assert _under("/usr/bin/dash", "ls && rm -rf build").verdict == "reject"
    assert _under("/usr/bin/dash", "git fetch").verdict == "prompt"


def test_a_rule_naming_the_shell_allows_the_command_under_it() -> None:
    rules = RULES + 'prefix_rule(pattern=["/usr/bin/dash", "-c", "git status"])\n'
    assert _under("/usr/bin/dash", "git status", rules) == safety.CommandDecision("allow", False)
    assert _under("/usr/bin/zsh", "git status", rules).sandboxed
