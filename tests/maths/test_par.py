"""The PAR sheet carries the exact parts, the simulated figures and the strips."""

from __future__ import annotations

from collections import Counter

from typer.testing import CliRunner

from slotforge.cli import app


def test_par_sheet_for_dynasty(tmp_path, dynasty):
    path = tmp_path / "dynasty.md"
    result = CliRunner().invoke(app, ["par", "dynasty", "-n", "200000", "-w", "1", "--out", str(path)])
    assert result.exit_code == 0, result.output
    sheet = path.read_text()
    report = dynasty.rtp_report()
    assert f"**{report['rtp'] * 100:.4f}%**" in sheet
    for part, value in report["parts"].items():
        assert f"| {part} | {value * 100:.4f}% |" in sheet
    seals_on_reel_2 = Counter(dynasty.spec.reels["base"][1])["SEAL"]
    assert f"| SEAL | 0 | {seals_on_reel_2} |" in sheet  # SEAL never on reel 1
    assert "200,000 rounds, seed 1" in sheet
