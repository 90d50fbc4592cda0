import type { ModelCall } from '@docqa/answers';
import type { Usage } from './ask.types';

/** Adds up model calls into the Usage of an answer (per model, in order of first call). */
export class UsageMeter {
  private readonly byModel = new Map<string, { inputTokens: number; outputTokens: number; calls: number }>();

  add(call: ModelCall | undefined): void {
    if (!call) return;
    const m = this.byModel.get(call.model) ?? { inputTokens: 0, outputTokens: 0, calls: 0 };
    m.inputTokens += Math.max(0, Math.round(call.inputTokens));
    m.outputTokens += Math.max(0, Math.round(call.outputTokens));
    m.calls += 1;
    this.byModel.set(call.model, m);
  }

  toUsage(): Usage {
    const perModel = [...this.byModel].map(([model, m]) => ({ model, ...m }));
    return {
      inputTokens: perModel.reduce((s, m) => s + m.inputTokens, 0),
      outputTokens: perModel.reduce((s, m) => s + m.outputTokens, 0),
      calls: perModel.reduce((s, m) => s + m.calls, 0),
      perModel,
    };
  }
}
