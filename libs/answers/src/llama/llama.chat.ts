import type {
  RewriteInput,
  RewriteResult,
  Rewriter,
  TitleInput,
  TitleResult,
  Titler,
} from '../generation.port';
import { ChatPrompt, PromptCompletion, rewriteWith, titleWith } from '../grounded/conversation-prompts';
import { LlamaRuntime } from './llama-runtime';

/** One line of text: a rewrite or a title never runs on into a second paragraph. */
const ONE_LINE = 'root ::= [^\\n]+\n';

/** A short one-line completion on the local model (through its queue). */
async function complete(
  runtime: LlamaRuntime,
  what: string,
  prompt: ChatPrompt,
  maxTokens: number,
  signal?: AbortSignal,
): Promise<{ text: string; inputTokens: number; outputTokens: number }> {
  return runtime.run(what, signal, async (m, s) => {
    const before = m.sequence.tokenMeter.getState();
    const session = new m.ChatSession({
      contextSequence: m.sequence,
      systemPrompt: prompt.system,
      autoDisposeSequence: false,
    });
    try {
      const text = await session.prompt(prompt.user, {
        maxTokens,
        temperature: 0,
        grammar: await m.grammar(ONE_LINE),
        signal: s,
      });
      const used = m.sequence.tokenMeter.diff(before);
      return { text, inputTokens: used.usedInputTokens, outputTokens: used.usedOutputTokens };
    } finally {
      session.dispose({ disposeSequence: false });
    }
  });
}

/** `complete` with the usage as a ModelCall of the runtime's model. */
function completion(runtime: LlamaRuntime): PromptCompletion {
  return async (what, prompt, maxTokens, signal) => {
    const r = await complete(runtime, what, prompt, maxTokens, signal);
    return {
      text: r.text,
      call: { model: runtime.modelName, inputTokens: r.inputTokens, outputTokens: r.outputTokens },
    };
  };
}

/**
 * The local model as query rewriter: with history, the last turns (trimmed) and the question become
 * one standalone question; without history the question already stands alone and no call is made.
 */
export class LlamaRewriter implements Rewriter {
  constructor(private readonly runtime: LlamaRuntime) {}

  get model(): string {
    return this.runtime.modelName;
  }

  rewrite(input: RewriteInput): Promise<RewriteResult> {
    return rewriteWith(completion(this.runtime), 'Local query rewriter', 60, input);
  }
}

/** The local model as conversation titler (the local title when it says nothing usable). */
export class LlamaTitler implements Titler {
  constructor(private readonly runtime: LlamaRuntime) {}

  get model(): string {
    return this.runtime.modelName;
  }

  title(input: TitleInput): Promise<TitleResult> {
    return titleWith(completion(this.runtime), 'Local title model', 24, input);
  }
}
