module.exports = async function globalTeardown() {
  const started = globalThis.__DOCQA_INFRA__ || {};
  await Promise.all(Object.values(started).map((s) => s && s.stop().catch(() => undefined)));
};
