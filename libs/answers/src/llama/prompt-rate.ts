/**
 * How fast this process's model reads a prompt, learned from its own answers: tokens evaluated
 * before the first answer token, over the time that took. On a CPU the prompt is most of the time
 * to the first word of an answer, and its speed differs by host and load (2 cores read the 1.5B
 * model's prompts at 65-80 tokens/s here, 150 on the host the models README measured), so a fixed
 * token budget gives a first word in 10 s on one machine and 20 s on another. With the rate known,
 * the answer prompt is cut to what is read within a target time (LLM_FIRST_TOKEN_TARGET_MS).
 */
export class PromptRate {
  /** Tokens per millisecond, smoothed; undefined until a prompt long enough to tell was read. */
  private rate?: number;

  /**
   * @param minTokens prompts shorter than this are not measured: fixed costs (the grammar's first
   *   step, sampling) dominate them.
   * @param weight share of the newest measurement in the smoothed rate: recent load counts most,
   *   one odd answer does not decide.
   */
  constructor(
    private readonly minTokens = 64,
    private readonly weight = 0.3,
  ) {}

  /** One prompt of `tokens` evaluated tokens, read in `ms` (to its first answer token). */
  record(tokens: number, ms: number): void {
    if (!(tokens >= this.minTokens) || !(ms > 0)) return;
    const r = tokens / ms;
    this.rate = this.rate === undefined ? r : this.rate * (1 - this.weight) + r * this.weight;
  }

  /** Tokens read per second, or undefined before the first measurement. */
  get tokensPerSecond(): number | undefined {
    return this.rate === undefined ? undefined : this.rate * 1000;
  }

  /** Prompt tokens read within `ms` at the learned rate; undefined before the first measurement. */
  tokensWithin(ms: number): number | undefined {
    return this.rate === undefined ? undefined : Math.floor(this.rate * ms);
  }
}
