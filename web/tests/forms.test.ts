// The autoplay form's own checks, in words, and the lobby's plain volatility scale.
import { describe, expect, it } from "vitest";
import { autoplayFormProblem } from "../src/panels";
import { volatilityLevel } from "../src/dom";

const rules = (required: boolean) => ({ autoplay: { allowed: true, max_rounds: 100, loss_limit_required: required } });

describe("autoplayFormProblem", () => {
  it("asks for the loss limit where the jurisdiction requires one", () => {
    expect(autoplayFormProblem({}, rules(true))).toMatch(/^A loss limit is required here/);
    expect(autoplayFormProblem({}, rules(false))).toBeNull();
  });
  it("explains an amount that is not money, never with a pattern", () => {
    for (const value of ["abc", "1.234", "-5", "1e3", "12,50"]) {
      const problem = autoplayFormProblem({ cash_decrease: value }, rules(false));
      expect(problem).toMatch(/^The loss limit must be an amount of money such as 50 or 12.50/);
      expect(problem).not.toMatch(/\^|\[0-9\]|VALIDATION/);
    }
  });
  it("refuses zero and takes a good amount", () => {
    expect(autoplayFormProblem({ single_win_at_least: "0.00" }, rules(false))).toBe("The single win to stop on must be more than zero.");
    expect(autoplayFormProblem({ cash_decrease: "50", cash_increase: "12.50" }, rules(true))).toBeNull();
  });
});

describe("volatilityLevel", () => {
  const volatility = (word: string) => ({ word, std: "11.917", index: "19.60", by_bet: [] });
  it("places each word of the PAR sheets on a scale of 4", () => {
    expect(["low", "medium", "medium-high", "high"].map((w) => volatilityLevel(volatility(w))?.level)).toEqual([1, 2, 3, 4]);
    expect(volatilityLevel(volatility("high"))?.of).toBe(4);
    expect(volatilityLevel(null)).toBeNull();
  });
});

describe("explain", () => {
  it("says a refused field in words, never the server's pattern", async () => {
    const { ApiError, explain } = await import("../src/api");
    const error = new ApiError(422, { error: "VALIDATION", message: "cash_decrease: String should match pattern '^[0-9]{1,12}'", field: "cash_decrease" }, null);
    const text = explain(error);
    expect(text).toBe("The value for cash decrease was not accepted: check it and try again.");
    expect(text).not.toMatch(/pattern|\^|VALIDATION/);
  });
});
