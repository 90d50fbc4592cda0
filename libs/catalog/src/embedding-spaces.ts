import type { DataSource } from 'typeorm';

/**
 * The embedding space (`<model>:<dimensions>`) that holds the most COMPLETE documents, and how many,
 * over every account (an operator's view of the install: which model its index was built with).
 * A plain read, not a provider, so the embedder can be chosen with it before the application's
 * modules exist (libs/embeddings localModelInUse).
 */
export async function spaceOfMostDocuments(
  ds: DataSource,
): Promise<{ space: string; documents: number } | undefined> {
  const rows: Array<{ space: string; documents: number }> = await ds.query(
    `SELECT embedding_space AS space, count(*)::int AS documents FROM documents
      WHERE status = 'COMPLETE' AND embedding_space IS NOT NULL
      GROUP BY embedding_space ORDER BY documents DESC, embedding_space LIMIT 1`,
  );
  return rows[0];
}
