// Free-round campaigns: the operator's campaigns, one with its progress (players, rounds, the
// cost so far beside the expected cost), and, for those allowed, making one, granting it to
// players and cancelling it. The server checks every field and names the one it refuses.

import { call, can } from "./api";
import { esc, fields, table, when } from "./dom";
import type { Campaign, CampaignPage, CampaignShown, Grants } from "./types";

const PATH = "/v1/operator/free-rounds/campaigns";

export async function showCampaigns(view: HTMLElement): Promise<void> {
  const { campaigns } = await call<CampaignPage>("GET", PATH);
  view.innerHTML = `
    <h1>Free-round campaigns</h1>
    ${table(["Reference", "Name", "Games", "Rounds per player", "From", "Until", "State"], campaigns.map((c: Campaign) => [
      `<a href="#/campaigns/${encodeURIComponent(c.reference)}">${esc(c.reference)}</a>`, esc(c.name),
      esc(c.games.join(", ")), String(c.rounds), when(c.valid_from), when(c.valid_until), esc(c.state),
    ]), "campaigns")}
    ${can("free_rounds") ? `
    <h2>New campaign</h2>
    <form id="new-campaign" class="filters">
      <label>Reference <input name="reference" required></label>
      <label>Name <input name="name" required></label>
      <label>Games <input name="games" placeholder="dynasty, divine_fortune" required></label>
      <label>Currency <input name="currency" value="EUR" size="4" required></label>
      <label>Bet (the game's bet fields) <input name="bet" value='{"coin_value": "0.05"}' required></label>
      <label>Rounds per player <input name="rounds" type="number" min="1" value="10" required></label>
      <label>From <input name="valid_from" type="datetime-local" required></label>
      <label>Until <input name="valid_until" type="datetime-local" required></label>
      <label>Player cap <input name="player_cap" type="number" min="1"></label>
      <label><input name="allow_gamble" type="checkbox"> Gamble</label>
      <label><input name="jackpot_eligible" type="checkbox"> Jackpot</label>
      <button>Make the campaign</button>
    </form>
    <p role="alert" id="campaign-refused" hidden></p>` : ""}`;
  const form = view.querySelector<HTMLFormElement>("#new-campaign");
  form?.addEventListener("submit", (event) => {
    event.preventDefault();
    void submit(view, "#campaign-refused", async () => {
      const made = await call<Campaign>("POST", PATH, campaignBody(form));
      location.hash = `#/campaigns/${encodeURIComponent(made.reference)}`;
    });
  });
}

/** The new campaign's body from its form (the times in the browser's zone, sent as UTC). */
function campaignBody(form: HTMLFormElement): Record<string, unknown> {
  const given = fields(form);
  let bet: unknown;
  try {
    bet = JSON.parse(given.bet);
  } catch {
    throw new Error("bet: expected the game's bet fields as JSON, like {\"coin_value\": \"0.05\"}");
  }
  return {
    reference: given.reference, name: given.name, games: given.games.split(",").map((g) => g.trim()).filter(Boolean),
    bets: { [given.currency]: bet }, rounds: Number(given.rounds),
    valid_from: new Date(given.valid_from).toISOString(), valid_until: new Date(given.valid_until).toISOString(),
    player_cap: given.player_cap ? Number(given.player_cap) : null,
    allow_gamble: form.querySelector<HTMLInputElement>("[name=allow_gamble]")?.checked ?? false,
    jackpot_eligible: form.querySelector<HTMLInputElement>("[name=jackpot_eligible]")?.checked ?? false,
  };
}

export async function showCampaign(view: HTMLElement, reference: string): Promise<void> {
  const { campaign, progress } = await call<CampaignShown>("GET", `${PATH}/${encodeURIComponent(reference)}`);
  const open = campaign.state === "scheduled" || campaign.state === "active";
  view.innerHTML = `
    <h1>${esc(campaign.name)} <small>${esc(campaign.reference)}</small></h1>
    <p>${esc(campaign.state)}: ${campaign.rounds} rounds per player on ${esc(campaign.games.join(", "))},
      ${when(campaign.valid_from)} to ${when(campaign.valid_until)}; gamble ${campaign.allow_gamble ? "on" : "off"},
      jackpot ${campaign.jackpot_eligible ? "on" : "off"}${campaign.player_cap ? `; at most ${campaign.player_cap} players` : ""}.</p>
    <p id="progress">${progress.players} players granted, ${progress.rounds_played} of ${progress.rounds_granted} rounds played.</p>
    ${table(["Currency", "Players", "Rounds complete", "Bets", "Wins paid (cost so far)", "Expected cost of those",
             "Expected cost of all"], Object.entries(progress.by_currency).map(([currency, p]) => [
      esc(currency), String(p.players), String(p.rounds_complete), esc(p.bets), esc(p.cost_so_far),
      esc(p.expected_cost_of_played), esc(p.expected_cost),
    ]), "progress")}
    ${can("free_rounds") && open ? `
    <h2>Grant</h2>
    <form id="grant" class="filters">
      <label>Player ids (pasted, or a CSV's rows: player_id[,currency])
        <textarea name="players" rows="3" placeholder="alice, bob"></textarea></label>
      <label>or a CSV file <input name="csv" type="file" accept=".csv,text/csv,text/plain"></label>
      <label>Currency <input name="currency" value="${esc(Object.keys(campaign.bets)[0] ?? "EUR")}" size="4" required></label>
      <button>Grant</button>
    </form>
    <p id="granted"></p>
    <button type="button" id="cancel">Cancel the campaign</button>
    <p role="alert" id="campaign-refused" hidden></p>` : ""}`;
  const grant = view.querySelector<HTMLFormElement>("#grant");
  grant?.addEventListener("submit", (event) => {
    event.preventDefault();
    void submit(view, "#campaign-refused", async () => {
      const given = fields(grant);
      const file = grant.querySelector<HTMLInputElement>("[name=csv]")?.files?.[0];
      const players = grantees(`${given.players}\n${file ? await file.text() : ""}`, given.currency);
      const answer = await call<Grants>("POST", `${PATH}/${encodeURIComponent(reference)}/grants`, { players });
      await showCampaign(view, reference);
      const made = answer.grants.filter((g) => g.new).length;
      view.querySelector("#granted")!.textContent = `${made} granted, ${answer.grants.length - made} granted before.`;
    });
  });
  view.querySelector("#cancel")?.addEventListener("click", () => void submit(view, "#campaign-refused", async () => {
    await call("POST", `${PATH}/${encodeURIComponent(reference)}/cancel`);
    await showCampaign(view, reference);
  }));
}

/** The players a grant names: ids pasted (separated by commas, spaces or lines), and a CSV's rows
 * after its header (``player_id`` or ``player_id,currency``): each row's player in its row's
 * currency, else in ``currency``. Each player once: the first row naming them wins. */
export function grantees(text: string, currency: string): { player_id: string; currency: string }[] {
  const found = new Map<string, string>();
  let csv = false;
  for (const line of text.split(/\r?\n/)) {
    const cells = line.split(/[,;\t]/).map((cell) => cell.trim().replace(/^"(.*)"$/, "$1"));
    if (cells[0].toLowerCase() === "player_id") {
      csv = true;
      continue;
    }
    const rows = csv ? [[cells[0], cells[1]?.toUpperCase() || currency]]
      : cells.flatMap((cell) => cell.split(/\s+/)).map((id) => [id, currency]);
    for (const [id, its] of rows) {
      if (id && !found.has(id)) found.set(id, its);
    }
  }
  return [...found].map(([player_id, currency]) => ({ player_id, currency }));
}

/** Run a write; a refusal is shown with the server's words (which name the field). */
async function submit(view: HTMLElement, where: string, write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (error) {
    const refused = view.querySelector<HTMLElement>(where);
    if (refused) {
      refused.textContent = (error as Error).message;
      refused.hidden = false;
    }
  }
}
