import type { AgentIdentity } from "./agent-identity.ts";

/** Reputation summary as the API shows it (spec "Agent"). */
export type Reputation = Readonly<{
  verifiedCount: number;
  verifiedAvgScore: number;
  unverifiedCount: number;
  unverifiedAvgScore: number;
  validationCount: number;
}>;

/** Averages are `score_sum / count`, 0 when the count is 0. */
export function averageScore(scoreSum: bigint, count: bigint): number {
  if (count === 0n) return 0;
  return Number(scoreSum) / Number(count);
}

export function reputationOf(agent: AgentIdentity): Reputation {
  return {
    verifiedCount: Number(agent.verifiedFeedbackCount),
    verifiedAvgScore: averageScore(agent.verifiedScoreSum, agent.verifiedFeedbackCount),
    unverifiedCount: Number(agent.unverifiedFeedbackCount),
    unverifiedAvgScore: averageScore(agent.unverifiedScoreSum, agent.unverifiedFeedbackCount),
    validationCount: Number(agent.validationCount),
  };
}
