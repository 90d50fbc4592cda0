import { Injectable, Logger } from '@nestjs/common';
import { DocsetCatalog } from '@docqa/catalog';
import { toDomainError } from '@docqa/common';
import { AskEvent, AskScope, AskService, ASK_LIMITS, Citation } from '@docqa/rag';
import { ChatbotAccessService, ChatbotCaller } from '../access/chatbot-access.service';
import { AskQuestionCommand } from '../commands';
import { ChatbotFilesService } from '../files/chatbot-files.service';
import { renderAnswerHtml } from './render-html';

/** Spec "Citation (chatbot answer)". */
export interface ChatbotCitation {
  index: number;
  fileName: string;
  pageNumber: string;
  /** Signed, expiring link to the file on this API (`#page=N` for PDFs). */
  source: string;
}

export interface ChatbotAnswer {
  /** Markdown (`format: text`) or sanitised HTML (`format: html`), with `[n]` markers. */
  answer: string;
  citations: ChatbotCitation[];
  /** The account's support address; empty when none is configured. */
  support_email: string;
}

/**
 * What `stream: true` sends, in this order: `delta` events (Markdown pieces that concatenate to
 * the text answer, whatever the format), one `citations` event, then `done` with the complete
 * answer in the requested format, its citations and the support address. A failure after the
 * stream started ends it with one `error` event instead.
 */
export type ChatbotEvent =
  | { type: 'delta'; text: string }
  | { type: 'citations'; citations: ChatbotCitation[] }
  | ({ type: 'done' } & ChatbotAnswer)
  | { type: 'error'; error: string };

/**
 * Chatbot answers through the Document API's ask pipeline (libs/rag AskService), over the docsets
 * the account chose for the widget (all of its docsets by default), with chatbot citations whose
 * `source` is a signed file link.
 */
@Injectable()
export class ChatbotAnswerService {
  private readonly logger = new Logger('ChatbotAnswer');

  constructor(
    private readonly ask: AskService,
    private readonly docsets: DocsetCatalog,
    private readonly files: ChatbotFilesService,
    private readonly access: ChatbotAccessService,
  ) {}

  /**
   * Checks pass before the first event; the iterable then yields the answer's events. The request
   * counts against the key's hourly limit from here (it is valid and reaches an answer).
   */
  async stream(
    caller: ChatbotCaller,
    cmd: AskQuestionCommand,
    signal?: AbortSignal,
  ): Promise<AsyncIterable<ChatbotEvent>> {
    await this.access.countRequest(caller);
    const asker = await this.askerFor(caller);
    const events = await this.ask.stream(
      asker,
      {
        question: cmd.question,
        docSetNames: [...asker.allowedDocSetNames],
        pastMessages: cmd.pastMessages,
        retrievalLimit: ASK_LIMITS.retrievalLimit.default,
        minimumSimilarityScore: ASK_LIMITS.minimumSimilarityScore.default,
        stream: cmd.stream,
      },
      signal,
    );
    return this.translate(caller, cmd, events, signal);
  }

  async answer(caller: ChatbotCaller, cmd: AskQuestionCommand, signal?: AbortSignal): Promise<ChatbotAnswer> {
    for await (const e of await this.stream(caller, { ...cmd, stream: false }, signal)) {
      if (e.type === 'done')
        return { answer: e.answer, citations: e.citations, support_email: e.support_email };
      if (e.type === 'error') throw new Error(e.error);
    }
    throw new Error('The answer ended without a result');
  }

  /**
   * The ask scope of a chatbot key: the key's account, limited to the widget's docsets that exist
   * now (a docset removed since it was chosen is skipped, not a 403); the widget asks all of them.
   * The list read here is the ask's docset check too (`servedDocSetNames`): one read per ask.
   */
  private async askerFor(caller: ChatbotCaller): Promise<AskScope & { allowedDocSetNames: string[] }> {
    const existing = await this.docsets.existingDocsetNamesOfAccount(caller.accountId);
    const chosen = caller.docSetNames;
    const allowedDocSetNames = chosen ? existing.filter((n) => chosen.includes(n)) : existing;
    return { accountId: caller.accountId, allowedDocSetNames, servedDocSetNames: existing };
  }

  private async *translate(
    caller: ChatbotCaller,
    cmd: AskQuestionCommand,
    events: AsyncIterable<AskEvent>,
    signal?: AbortSignal,
  ): AsyncIterable<ChatbotEvent> {
    let citations: ChatbotCitation[] = [];
    try {
      for await (const e of events) {
        if (e.type === 'delta') yield { type: 'delta', text: e.text };
        else if (e.type === 'citations') {
          citations = e.citations.map((c) => this.citation(caller.accountId, c));
          yield { type: 'citations', citations };
        } else if (e.type === 'done') {
          const answer =
            cmd.format === 'html'
              ? renderAnswerHtml(e.answer, new Map(citations.map((c) => [c.index, c.source])))
              : e.answer;
          yield { type: 'done', answer, citations, support_email: caller.supportEmail ?? '' };
        } else if (e.type === 'error') {
          yield { type: 'error', error: e.message };
          return;
        }
      }
    } catch (err) {
      if (signal?.aborted) return;
      const { error, errorId } = toDomainError(err);
      this.logger.warn(
        { chatbotKeyId: caller.keyId, errorCode: error.code, errorId, errName: (err as Error)?.name },
        'chatbot answer failed',
      );
      if (!cmd.stream) throw err;
      yield { type: 'error', error: error.message };
    }
  }

  private citation(accountId: number, c: Citation): ChatbotCitation {
    return {
      index: c.index,
      fileName: c.fileName,
      pageNumber: c.pageNumber,
      source: this.files.linkFor(accountId, {
        documentId: c.sourceMetadata.documentId,
        fileName: c.fileName,
        pageNumber: c.pageNumber,
      }),
    };
  }
}
