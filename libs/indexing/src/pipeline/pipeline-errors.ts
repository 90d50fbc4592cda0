/** The listing found no supported file while the docset has documents in that scope: nothing is removed. */
export class SourceEmptyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SourceEmpty';
  }
}

/** A run or document row the workflow refers to no longer exists (the docset was deleted). */
export class RunGoneError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunGone';
  }
}
