/**
 * Turns an @Injectable activity class instance into the plain function map the Temporal worker
 * wants, binding `this`. Only own prototype methods are exported, never the constructor.
 */
export function activitiesOf(instance: object): Record<string, (...args: never[]) => Promise<unknown>> {
  const out: Record<string, (...args: never[]) => Promise<unknown>> = {};
  const proto = Object.getPrototypeOf(instance) as Record<string, unknown>;
  for (const name of Object.getOwnPropertyNames(proto)) {
    const fn = proto[name];
    if (name !== 'constructor' && typeof fn === 'function') {
      out[name] = (fn as (...a: never[]) => Promise<unknown>).bind(instance);
    }
  }
  return out;
}
