"""The benchmark at smoke size: it must keep running (its figures are read from full runs)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

PERF = Path(__file__).resolve().parents[1] / "perf"

pytestmark = pytest.mark.slow  # the bench at smoke size: tens of seconds


def load_bench():
    if str(PERF) not in sys.path:
        sys.path.insert(0, str(PERF))
    spec = importlib.util.spec_from_file_location("roost_bench", PERF / "bench.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_smoke_runs_and_reports_every_section(capsys):
    bench = load_bench()
    sections = ["refresh", "validation", "store_paths", "cli", "memory", "table", "cold_start"]
    sections += ["refresh_stall", "keys", "thread", "posts", "pulse"]
    result = bench.main(["--smoke", "--only", ",".join(sections)])
    refresh = result["refresh"]
    # structural facts, not timings: a no-change cycle is one conditional request
    assert refresh["store_no_change_304"]["requests"] == 1
    assert refresh["store_no_change_304"]["manifest"] == "not-modified"
    assert refresh["ttl_full_refetch"]["requests"] == 5
    assert refresh["bytes_ratio_304"] > 1
    assert [row["agents"] for row in result["validation"]["results"]] == [200, 1000]
    assert [row["agents"] for row in result["store_paths"]["results"]] == [200, 1000]
    cli = result["cli"]
    # the floor prints the same five documents roost's --json holds, and roost prints more
    assert 0 < cli["output_bytes"]["floor"] < cli["output_bytes"]["state_json"]
    memory = result["memory"]
    assert memory["state_peak_traced_mib"] > 0 and memory["json_load_max_rss_mib"] > 0
    assert memory["state_json_max_rss_mib"] > 0 and memory["floor_json_peak_traced_mib"] > 0
    assert result["table"]["rows"] == 2000
    thread = result["thread"]
    assert thread["comments"] == 200 and thread["j_held"]["presses"] == 200
    assert_posts(result["posts"])
    assert_pulse(result["pulse"])
    for kind in ("process", "in_process"):
        cold = result["cold_start"][kind]
        assert cold["agents"] == 2000 and cold["roost_s"] > 0 and cold["bare_s"] > 0
    process = result["cold_start"]["process"]
    assert process["peak_rss_at_paint_mib"]["bare"] > 0
    # each roost run's own load, and the ratio with it subtracted, beside the separate load's
    assert process["own_data_load_s"] > 0 and process["median_round_ratio_own_load"] > 0
    keys = result["keys"]
    assert keys["agents"] == 2000 and {"slash", "enter", "ctrl+p"} <= set(keys["per_key"])
    assert keys["quit_s"] > 0 and keys["bare_quit_s"] > 0
    assert len(keys["quit_rounds"]["roost_s"]) == len(keys["quit_rounds"]["bare_s"]) >= 1
    quit_process = keys["quit_process"]
    assert quit_process["roost_s"] > 0 and quit_process["bare_s"] > 0
    stall = result["refresh_stall"]
    assert stall["agents"] == 2000 and set(stall["runs"]) == {
        "keyed",
        "whole",
        "keyed_first",
        "no_copy",
    }
    assert '"refresh"' in capsys.readouterr().out
    assert_figures_and_page(result, tuple(sections))


def assert_posts(posts):
    """The Posts section's structural facts: what was measured, not how fast."""
    assert posts["agents"] == 2000 and posts["posts"] == posts["logged_posts"] > 2000
    assert posts["logged_comments"] > posts["posts"]
    # the same script on both tabs, every step of it timed
    assert posts["agents_tab"]["presses"] == posts["posts_tab"]["presses"] > 10
    assert {"filter letter", "sort by text"} <= set(posts["posts_tab"]["per_key"])
    visit = posts["first_visit_ms"]
    assert 0 < visit["next_frame_s"] <= visit["populated_s"] <= visit["warmed_s"]
    # a no-change refresh: nothing for the log when the manifest lists it, else one 304
    listed, unlisted = posts["refresh"]["listed"], posts["refresh"]["unlisted"]
    assert listed["posted_log_requests"] == 0 and listed["posted_log_integrity"] == "verified"
    assert unlisted["posted_log_statuses"] == [304]
    assert unlisted["posted_log_integrity"] == "unverified"
    assert posts["parse"]["bytes"] == posts["log_bytes"] and posts["parse"]["ratio"] > 0
    assert posts["memory"]["parse_held_mib"] > 0 and posts["memory"]["json_loads_held_mib"] > 0
    assert [f["goal"] is not None for f in posts["figures"]].count(True) == 7


def assert_pulse(pulse):
    """The pulse section's structural facts: the world it ran on and what was measured."""
    assert pulse["agents"] == 2000
    # the demo world's pulse: four notifications and three change entries per agent
    assert pulse["notifications"] == 8000 and pulse["changes"] == pulse["feed_rows"] == 6000
    assert pulse["inbox_items"] > 0 and pulse["other_items"] > 0
    assert pulse["status_bar"].startswith(pulse["agent"])
    assert pulse["inbox"]["n"] == pulse["help"]["n"] >= 2
    # the same script on both tabs, and Activity's agent filter on top
    agents, activity = pulse["agents_tab"], pulse["activity_tab"]
    assert {"filter letter", "quick filter"} <= set(agents["per_key"])
    assert activity["presses"] == agents["presses"] + 2 * pulse["rounds"]
    visit = pulse["first_visit_ms"]
    assert 0 < visit["next_frame_s"] <= visit["populated_s"] <= visit["warmed_s"]
    # a no-change refresh: the manifest's 304, and one 304 per pulse file it does not list
    refresh = pulse["refresh"]
    assert refresh["listed"]["requests"] == refresh["none_wanted"]["requests"] == 1
    assert refresh["unlisted"]["requests"] == 6 and refresh["unlisted"]["body_bytes"] == 0
    assert [f["goal"] is not None for f in pulse["figures"]].count(True) == 6


def assert_figures_and_page(result, sections):
    """Every section reports figures; a figure with a goal says whether its value met it, and
    the page written from the run shows every figure and every goal."""
    import figures

    goals = 0
    for section in sections:
        records = result[section]["figures"]
        assert records, section
        for record in records:
            assert set(record) == {"figure", "value", "unit", "goal", "met"}
            if record["goal"] is None:
                assert record["met"] is None
            else:
                goals += 1
                assert record["met"] is figures.goal_met(record["value"], record["goal"])
    assert goals >= 5  # cli, memory, cold start, keys and quit carry goals (and more)
    page = figures.render(result, sections)
    for section in sections:
        assert f"### {section}" in page
        for record in result[section]["figures"]:
            assert record["figure"] in page
    assert page.count("\n- `") >= goals  # one line per goal in the Goals list


def test_bench_ssh_section_serves_a_team_through_the_zygote():
    """The ssh section at smoke size: a real serve-ssh, its zygote, three sessions forked from
    it (structure only: the figures are a full run's)."""
    bench = load_bench()
    result = bench.main(["--smoke", "--only", "ssh", "--ssh", "3"])["ssh"]
    runs = result["runs"]
    assert result["sessions"] == 3 and result["agents"] == 2000 and result["zygote"]
    assert len(runs["together_s"]) == 3 and all(s > 0 for s in runs["together_s"])
    assert len(runs["lone_session_s"]) == len(runs["local_start_s"]) == 1
    assert runs["memory"]["sessions"] == runs["memory"]["forked"] == 3
    assert runs["memory"]["zygote_pss"] > 0
    assert runs["memory"]["sessions_and_zygote_pss"] > runs["memory"]["zygote_pss"]
    # less the tree's idle rate: one session's change at smoke size can come to 0 on a busy
    # machine (it did once, with the other test worker running)
    assert runs["change_cpu_s"]["sessions"] > 0 and runs["change_cpu_s"]["one"] >= 0
    assert any("zygote: ready" in line for line in runs["zygote_log"])
    assert not any("exited" in line for line in runs["zygote_log"])
    assert {record["figure"] for record in result["figures"]} >= {
        "a lone session to first rows over a local start",
        "bytes an idle session's client receives, a minute, max",
    }


def test_the_machinery_section_runs_every_variant_and_writes_its_table(tmp_path):
    """``--plain --smoke``: every figure with each ROOST_PLAIN variant, and the page's "What
    the machinery buys" written to a file of the test's (never docs/)."""
    bench = load_bench()
    page = tmp_path / "performance.md"
    result = bench.main(["--plain", "--smoke", "--page", str(page)])
    machinery = result["machinery"]
    names = [variant["name"] for variant in machinery["variants"]]
    assert set(machinery["table"]) == set(names) == {*machinery["buys"], "everything on"}
    for row in machinery["table"].values():
        assert all(value > 0 for value in row.values())
    text = page.read_text(encoding="utf-8")
    assert "## What the machinery buys" in text
    assert all(f"| {name}" in text for name in names)
