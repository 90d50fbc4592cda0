import { RUN_FAILURE } from '@docqa/workflow-contract';

/** The listing found no supported file while the docset has documents in that scope: nothing is removed. */
export class SourceEmptyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = RUN_FAILURE.SOURCE_EMPTY;
  }
}

/** A run or document row the workflow refers to no longer exists (the docset was deleted). */
export class RunGoneError extends Error {
  constructor(message: string) {
    super(message);
    this.name = RUN_FAILURE.RUN_GONE;
  }
}
