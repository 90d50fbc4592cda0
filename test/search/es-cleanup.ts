import type { Client } from '@elastic/elasticsearch';

/** Deletes every index and index template of a test prefix (names listed, no wildcard deletes). */
export async function deleteEsPrefix(client: Client, prefix: string): Promise<void> {
  const indices = (await client.cat.indices({ index: `${prefix}*`, format: 'json' })) as Array<{
    index?: string;
  }>;
  for (const i of indices)
    if (i.index) await client.indices.delete({ index: i.index }).catch(() => undefined);
  const templates = await client.indices
    .getIndexTemplate({ name: `${prefix}*` })
    .catch(() => ({ index_templates: [] }));
  for (const t of templates.index_templates) {
    await client.indices.deleteIndexTemplate({ name: t.name }).catch(() => undefined);
  }
}
