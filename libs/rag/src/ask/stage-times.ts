/**
 * Milliseconds of each step of one ask, for its log line: a slow answer names the step that was
 * slow (the engine's reads, the model, the database) without a profiler.
 */
export class StageTimes {
  private readonly start = Date.now();
  private last = this.start;
  private readonly laps: string[] = [];

  lap(stage: string): void {
    const now = Date.now();
    this.laps.push(`${stage} ${now - this.last}`);
    this.last = now;
  }

  summary(): string {
    return `${Date.now() - this.start} ms (${this.laps.join(', ')})`;
  }
}
