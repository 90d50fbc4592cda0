import { Injectable, Logger } from '@nestjs/common';
import { analyseQuery } from '@docqa/text';
import type { AskScope } from '../ask/ask.types';
import { passageSource } from '../ask/citations';
import { StageTimes } from '../ask/stage-times';
import { UsageMeter } from '../ask/usage';
import { DocsetAccess } from '../retrieval/docset-access';
import { RetrievalService } from '../retrieval/retrieval.service';
import type { SearchCommand, SearchResponse } from './search.types';

/**
 * /search (an extension of the Document API): the passages /ask would answer from, ranked by the
 * same retrieval (RetrievalService) and shown with the source fields of /ask's citations. The
 * query is taken as a question without history; nothing is generated.
 */
@Injectable()
export class SearchService {
  private readonly log = new Logger('SearchService');

  constructor(
    private readonly access: DocsetAccess,
    private readonly retrieval: RetrievalService,
  ) {}

  /** 403 FORBIDDEN for a docset that is not the caller's, before anything is retrieved. */
  async search(asker: AskScope, cmd: SearchCommand, signal?: AbortSignal): Promise<SearchResponse> {
    const stages = new StageTimes();
    await this.access.authorize(asker, cmd.docSetNames);
    stages.lap('authorize');
    const usage = new UsageMeter();
    const { rewritten, hits } = await this.retrieval.retrieve(
      {
        accountId: asker.accountId,
        analysis: analyseQuery(cmd.query),
        docSetNames: cmd.docSetNames,
        pastMessages: [],
        limit: cmd.limit,
        minimumSimilarityScore: cmd.minimumSimilarityScore,
      },
      { usage, stages },
      signal,
    );
    this.log.log(
      `search: ${rewritten ? 'rewritten' : 'keyword'} query, ${hits.length} results, ` +
        `${usage.toUsage().calls} model calls, ${stages.summary()}`,
    );
    return {
      results: hits.map((h) => ({
        text: h.chunk.text,
        ...passageSource(h.chunk),
        docSetName: h.chunk.docSetName,
        documentId: h.chunk.documentId,
        score: h.score,
      })),
    };
  }
}
