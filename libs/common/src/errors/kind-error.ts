/**
 * An error of one of a few kinds whose `name` is the kind's Temporal failure type (from
 * libs/workflow-contract), so retry policies can list the permanent ones by name.
 */
export abstract class KindError<K extends string> extends Error {
  protected constructor(
    readonly kind: K,
    message: string,
    names: Readonly<Record<K, string>>,
  ) {
    super(message);
    this.name = names[kind];
  }
}
