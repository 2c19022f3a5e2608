// The Limits panel's form as the server takes it, and its words for a pending change and a refusal.
import { describe, expect, it } from "vitest";
import { pendingText, wantedLimits } from "../src/limits";

function form(fields: Record<string, string>): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  return data;
}

describe("wantedLimits", () => {
  it("sends every limit, an empty field as none", () => {
    expect(wantedLimits(form({ loss_day: " 50.00 ", loss_week: "", loss_month: "500", session_minutes: "60" }))).toEqual({
      loss: { day: "50.00", week: null, month: "500" },
      session_minutes: 60,
    });
    expect(wantedLimits(form({}))).toEqual({ loss: { day: null, week: null, month: null }, session_minutes: null });
  });
});

describe("pendingText", () => {
  it("says what applies and when, or that the limit goes", () => {
    expect(pendingText("80.00", "2026-12-08T10:00:00.000Z", (v) => `EUR ${v}`)).toBe("EUR 80.00 from 2026-12-08 10:00 UTC");
    expect(pendingText(null, "2026-12-08T10:00:00.000Z", String)).toBe("no limit from 2026-12-08 10:00 UTC");
  });
});

describe("explain", () => {
  it("names the limit reached and what remains", async () => {
    const { ApiError, explain } = await import("../src/api");
    const refused = new ApiError(403, { error: "LOSS_LIMIT_REACHED", message: "loss.day: ...", period: "day", remaining: "0.10" }, null);
    expect(explain(refused)).toBe("Your loss limit per day is reached (0.10 left). Play resumes as older rounds leave the period.");
  });
});
