import { nextTurn } from '../next-turn.ts';

/** Work that may run this long in one go before other requests get a turn. */
export const TURN_MS = 8;

/** Hands the loop to others when the work since the last turn has taken `turnMs`. */
export function turnTaker(turnMs = TURN_MS, yieldTurn: () => Promise<void> = nextTurn): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < turnMs) return;
    await yieldTurn();
    since = performance.now();
  };
}
