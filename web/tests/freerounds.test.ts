// The free rounds' prompt, counter and summary words, and which grant a game page offers.
import { describe, expect, it } from "vitest";
import { counter, offeredOn, summary } from "../src/freerounds";
import type { FreeRounds } from "../src/types";

const grant = (fields: Partial<FreeRounds>): FreeRounds => ({
  id: 1, campaign: "winter", name: "Winter spins", games: ["dynasty"], bet: {}, rounds: 10, played: 0, left: 10,
  state: "offered", won: "0.00", valid_from: "2026-12-01T00:00:00.000Z", valid_until: "2026-12-31T00:00:00.000Z",
  gamble: false, jackpot: false, ...fields,
});

describe("free rounds", () => {
  it("offers the first grant of the game with rounds left, not a declined or finished one", () => {
    const grants = [grant({ id: 1, games: ["divine_fortune"] }), grant({ id: 2, state: "declined" }),
      grant({ id: 3, left: 0, played: 10, state: "finished" }), grant({ id: 4, state: "accepted", played: 2, left: 8 })];
    expect(offeredOn(grants, "dynasty")?.id).toBe(4);
    expect(offeredOn(grants, "golden_grimoire")).toBeUndefined();
  });

  it("counts the round being played and sums up what they won", () => {
    expect(counter(grant({ played: 2, left: 8 }))).toBe("Free round 3 of 10");
    expect(summary(grant({ played: 10, left: 0, won: "4.20" }), "EUR")).toMatch(/^You won .*4\.20.* in your 10 free rounds of Winter spins\.$/);
  });
});
