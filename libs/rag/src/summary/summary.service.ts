import { Inject, Injectable } from '@nestjs/common';
import { ChatTurn, TITLER, Titler } from '@docqa/answers';

/** POST /summary: a short descriptive title for a conversation. */
@Injectable()
export class SummaryService {
  constructor(@Inject(TITLER) private readonly titler: Titler) {}

  async title(pastMessages: ChatTurn[], signal?: AbortSignal): Promise<{ title: string }> {
    const { title } = await this.titler.title({ messages: pastMessages, signal });
    return { title };
  }
}
