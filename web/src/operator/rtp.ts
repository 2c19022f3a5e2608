// Live RTP against theory: each game's actual RTP since a chosen day beside its published RTP and
// the 99% band it should fall in after that many rounds; a game outside its band is flagged.

import { call, query } from "./api";
import { esc, fields, percent, table } from "./dom";
import type { RtpLine } from "./types";

interface RtpReport {
  since: string | null;
  games: RtpLine[];
}

export async function showRtp(view: HTMLElement, since = ""): Promise<void> {
  const report = await call<RtpReport>("GET", `/v1/operator/reports/rtp${query({ from: since ? `${since}T00:00:00` : "" })}`);
  const flagged = report.games.filter((g) => g.outside_band);
  view.innerHTML = `
    <h1>Live RTP against theory</h1>
    <form id="since" class="filters">
      <label>Rounds finished since (UTC day) <input name="since" type="date" value="${esc(since)}"></label>
      <button type="submit">Show</button>
    </form>
    <p class="${flagged.length ? "alarm" : "calm"}" role="status" id="rtp-summary">${
      flagged.length
        ? `${flagged.length} game${flagged.length > 1 ? "s" : ""} outside the 99% band: ${flagged.map((g) => esc(g.game)).join(", ")}`
        : "Every game within its 99% band."
    }</p>
    ${table(
      ["Game", "Rounds", "Stakes", "Wins", "Actual RTP", "Theoretical RTP", "99% band", "Status"],
      report.games.map((g) => [
        esc(g.game), String(g.rounds), esc(g.stakes), esc(g.wins), percent(g.rtp), percent(g.theoretical_rtp),
        g.band_low === null ? "–" : `${percent(g.band_low)} to ${percent(g.band_high)}`,
        g.outside_band
          ? `<span class="flag" data-game="${esc(g.game)}" data-outside="true">outside the band</span>`
          : `<span class="ok" data-game="${esc(g.game)}" data-outside="false">within</span>`,
      ]),
      "live RTP",
    )}
    <p class="hint">The band is the published RTP ± 2.576 standard deviations of the actual RTP after these rounds,
    from the PAR sheet's standard deviation of one round (normal approximation: over few rounds a slot's return is
    skewed, most runs below the RTP). Fun rounds and void rounds are not counted.</p>`;
  const form = view.querySelector("#since") as HTMLFormElement;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    showRtp(view, fields(form).since).catch((error) => (view.innerHTML = `<p class="error">${esc(error.message)}</p>`));
  });
}
